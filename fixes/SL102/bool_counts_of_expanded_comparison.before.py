import torch


def kept_and_extra(mask, rows: int):
    """A comparison expanded after it is made: the sum counts a bool tensor."""
    m = (mask > 0).expand(rows, -1)
    return m.sum(), (m.sum(dim=0) - 1).clamp(min=0).sum()
