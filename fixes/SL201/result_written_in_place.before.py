import torch


def init_scores(row_bias, rows):
    """A writable (rows, cols) float buffer initialised from a (cols,) bias: it must be dense."""
    scores = row_bias[None, :].expand(rows, -1).float()
    scores[:, 0] = 0.0
    return scores
