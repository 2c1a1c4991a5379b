import torch


def any_hit(mask, rows: int):
    return (mask.expand(rows, -1) != 0).sum(dtype=torch.bool)
