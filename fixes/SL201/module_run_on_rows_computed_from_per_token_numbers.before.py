import torch
from torch import nn


def frequencies(dim: int, position: torch.Tensor) -> torch.Tensor:
    """Sinusoids of each number: one row of `dim` features per element of `position`."""
    half = dim // 2
    angles = torch.outer(position.double(), torch.exp(-torch.arange(half) / half))
    return torch.cat([angles.cos(), angles.sin()], dim=1)


class FrameTimesteps(nn.Module):
    """One timestep per sample and frame, copied to every token of its frame, then embedded:
    the MLP runs once per token on rows that repeat per frame."""

    def __init__(self, freq_dim: int, dim: int):
        super().__init__()
        self.freq_dim = freq_dim
        self.time_embedding = nn.Sequential(nn.Linear(freq_dim, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, x, timestep, seq_len: int, action_timestep=None):
        b, frames = timestep.shape
        timestep = timestep.unsqueeze(-1).expand(b, frames, seq_len // frames).reshape(b, -1)
        if action_timestep is not None:
            timestep = torch.cat([timestep, action_timestep], dim=1)
        sinusoids = frequencies(self.freq_dim, timestep.flatten()).type_as(x)
        return self.time_embedding(sinusoids).unflatten(0, (b, -1))

    def per_frame(self, x, timestep, seq_len: int):
        """Embedded once per frame, then expanded (a view the caller reads through its
        strides): nothing to report."""
        b, frames = timestep.shape
        sinusoids = frequencies(self.freq_dim, timestep.flatten()).type_as(x)
        emb = self.time_embedding(sinusoids).view(b, frames, 1, -1)
        return emb.expand(-1, -1, seq_len // frames, -1)
