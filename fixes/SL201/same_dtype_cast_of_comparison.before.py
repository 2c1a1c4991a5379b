import torch


def keep_mask(ids, rows):
    """A (rows, cols) bool mask of the non-zero ids (cols,): `.bool()` returns the tensor itself."""
    nonzero = (ids != 0).expand(rows, -1)
    return nonzero.bool()
