import torch
from torch import nn


class PackedModulation(nn.Module):
    """Samples packed into one sequence: each sample's conditioning row is copied over its
    own tokens, the copies are joined (and zero-padded to the packed length), and a Linear
    then computes one identical output row per token."""

    def __init__(self, dim: int):
        super().__init__()
        self.modulation = nn.Linear(dim, 6 * dim)

    def forward(self, cond, lengths: list[int], padded_length: int):
        rows = torch.cat(
            [cond[i : i + 1].unsqueeze(1).expand(1, lengths[i], -1) for i in range(len(lengths))],
            dim=1,
        )
        pad = padded_length - rows.shape[1]
        if pad:
            rows = torch.cat([rows, torch.zeros(1, pad, rows.shape[2], dtype=rows.dtype)], dim=1)
        return self.modulation(rows.reshape(padded_length, -1))

    def two_streams(self, cond_a, cond_b, n_image: int, n_text: int):
        """Two conditioning rows per sample, one for each stream's tokens."""
        rows = torch.cat(
            [cond_a.unsqueeze(1).expand(-1, n_image, -1), cond_b.unsqueeze(1).expand(-1, n_text, -1)],
            dim=1,
        )
        return self.modulation(rows)

    def per_sample(self, cond, batch: int):
        """A copy per batch row: a few rows, left alone."""
        rows = torch.cat([cond[i : i + 1].expand(batch, -1) for i in range(2)], dim=0)
        return self.modulation(rows)
