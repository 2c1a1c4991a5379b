import torch as t


def count(mask, rows: int):
    return (t.broadcast_to(mask, (rows, *mask.shape)) != 0).sum()
