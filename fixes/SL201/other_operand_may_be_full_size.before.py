import torch


def add_row_bias(x, bias):
    """x (rows, cols) plus a (cols,) bias: the sum is full size because x is."""
    return x + bias[None, :].expand(x.shape[0], -1)
