import torch


def add_bias(x, bias):
    """Add `bias` to `x`.

    Args:
        bias: a tensor, possibly broadcast to the shape of `x`.
    """
    b = bias.contiguous()
    return x + b
