import torch


def pair_mask(valid_tokens, length: int):
    """Token pairs that are both valid: the token mask repeated over rows, and-ed with its own
    transpose (repeated over columns). No dim is stride-0 in both, so every position of the
    result holds its own value: the `&` writes what it must, no finding."""
    rows = valid_tokens.unsqueeze(1).expand(-1, length, -1)
    return rows & rows.transpose(1, 2)


def row_mask(valid_tokens, length: int):
    """The same mask and-ed with itself: still one row repeated, materialized."""
    rows = valid_tokens.unsqueeze(1).expand(-1, length, -1)
    return rows & rows
