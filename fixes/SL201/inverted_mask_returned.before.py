import torch


def attend_mask(pad, n_queries):
    """True where a query may attend a key: pad (batch, keys) is True for padding."""
    batch, keys = pad.shape
    return ~pad[:, None, :].expand(batch, n_queries, keys)
