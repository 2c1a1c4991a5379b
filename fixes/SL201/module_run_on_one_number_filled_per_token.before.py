import torch
from torch import nn


class NoiseScaleConditioning(nn.Module):
    """A noise-scale embedder run on `torch.full_like` of the per-token timestep copy: one
    number at every position, so the MLP returns one identical row per token."""

    def __init__(self, dim: int):
        super().__init__()
        self.timestep_embedder = nn.Sequential(nn.Linear(1, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.noise_scale_embedder = nn.Sequential(nn.Linear(1, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, t, noise_scale: float, token_h: int, token_w: int):
        per_token = t.expand(token_h * token_w)
        scale = torch.full_like(per_token, noise_scale)
        return self.noise_scale_embedder(scale[:, None])

    def once(self, t, noise_scale: float, token_h: int, token_w: int):
        """Embedded once, then expanded: nothing to report."""
        scale = torch.full((1, 1), noise_scale, dtype=t.dtype)
        return self.noise_scale_embedder(scale).expand(token_h * token_w, -1)
