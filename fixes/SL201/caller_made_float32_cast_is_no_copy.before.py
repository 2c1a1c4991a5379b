import torch


def state_step(state, A, dt, x):
    """One decode step of a state-space layer. Its one caller passes `A` as a float32 tensor
    (`-exp` of `A_log.float()`) expanded over head_dim, so `A.float()` returns that view:
    no copy, no finding. `dt` is cast for real."""
    decay = torch.exp(dt.float() * A.float())
    return state * decay + x


def forward(state, A_log, dt, x, head_dim: int):
    A = -torch.exp(A_log.float())
    dt = dt[:, None].expand(-1, head_dim)
    return state_step(state, A[:, None].expand(-1, head_dim), dt, x)
