import torch


def per_row_extra(mask, dim, rows):
    m = mask.expand(rows, -1, -1) > 0
    per_row = m.sum(dim=dim)
    return (per_row - 1).clamp(min=0).sum()
