import torch


def grouped_to_heads(b_states, dt, num_heads: int):
    """The reshape right after the copy merges the stride-0 dim: on the view it would copy
    too, so dropping `.contiguous()` moves the copy instead of removing it: not reported."""
    batch, groups, state = b_states.shape
    b = b_states.reshape(batch, groups, 1, state)
    b = b.expand(batch, groups, num_heads // groups, state).contiguous()
    b = b.reshape(batch, num_heads, 1, state)
    return dt * b


def grouped_read(b_states, dt, num_heads: int):
    """Without the reshape every use reads the copy through its strides: reported."""
    batch, groups, state = b_states.shape
    b = b_states.reshape(batch, groups, 1, state)
    b = b.expand(batch, groups, num_heads // groups, state).contiguous()
    return dt * b
