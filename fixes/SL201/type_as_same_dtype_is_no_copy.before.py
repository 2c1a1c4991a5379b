import torch


def half_bias(bias, scores, heads):
    """A (batch, heads, keys) fp16 bias from a (batch, keys) one: `type_as` a tensor of the
    dtype it already has returns it, a view; nothing is copied."""
    batch, keys = bias.shape
    wide = bias.half()[:, None, :].expand(batch, heads, keys)
    template = scores.half()
    return wide.type_as(template)
