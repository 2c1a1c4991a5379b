import torch


def attention_bias(key_padding, heads: int, q_len: int):
    """A (B, K) key mask unsqueezed twice and grown over heads and queries: the message names
    both grown dims, and the cast writes B x heads x q_len x K floats."""
    mask = key_padding.unsqueeze(1).unsqueeze(1).expand(-1, heads, q_len, -1)
    return key_padding.unsqueeze(1).unsqueeze(1).float().expand_as(mask)
