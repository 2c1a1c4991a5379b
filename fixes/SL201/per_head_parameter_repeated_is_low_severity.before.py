import torch
from torch import nn


def selective_state_step(state, x, dt, A, dt_bias):
    """One decode step; dt_bias arrives repeated over head_dim by the caller."""
    dt = dt + dt_bias.to(dt.dtype)
    dA = torch.exp(dt * A)
    return state * dA[..., None] + x[..., None]


class MixerStep(nn.Module):
    def __init__(self, num_heads: int, head_dim: int):
        super().__init__()
        self.head_dim = head_dim
        self.dt_bias = nn.Parameter(torch.zeros(num_heads))
        self.A = nn.Parameter(torch.ones(num_heads))

    def forward(self, state, x, dt):
        """The per-head parameters repeated over head_dim are heads x head_dim numbers: the
        cast in the step function is low severity."""
        dt_bias = self.dt_bias[:, None].expand(-1, self.head_dim)
        A = self.A[:, None].expand(-1, self.head_dim)
        return selective_state_step(state, x, dt, A, dt_bias)
