import torch


def add_padding_bias(scores, pad, heads):
    """Add -1e4 to the attention scores (batch, heads, q, k) of padded keys (pad: batch, k)."""
    batch, keys = pad.shape
    bias = pad[:, None, None, :].expand(batch, heads, 1, keys).float() * -1e4
    return scores + bias
