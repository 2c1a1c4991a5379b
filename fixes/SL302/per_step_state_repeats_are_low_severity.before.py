import torch


def decode_step(state, dt, B, C, x, num_heads: int):
    """One decode step of a grouped state-space layer. `B` and `C` are repeated per head of
    their group: batch × heads × state numbers, one step's worth, 1/head_dim of the state they
    multiply. Every size of those expands names a per-step dim, so the copies are low severity
    (hidden by default)."""
    batch_size, num_groups, state_size = B.shape
    B = B[:, :, None].expand(batch_size, num_groups, num_heads // num_groups, state_size).contiguous()
    B = B.reshape(batch_size, num_heads, 1, state_size)
    state = state * torch.exp(dt) + B * x[..., None]
    C = C[:, :, None].expand(batch_size, num_groups, num_heads // num_groups, state_size).contiguous()
    C = C.reshape(batch_size, num_heads, state_size, 1)
    return torch.matmul(state, C)


def repeat_keys(keys, n_rep: int):
    """Keys repeated per query head over the whole sequence: reported."""
    batch, kv_heads, seq_len, head_dim = keys.shape
    keys = keys[:, :, None].expand(batch, kv_heads, n_rep, seq_len, head_dim).contiguous()
    return keys.reshape(batch, kv_heads * n_rep, seq_len, head_dim)
