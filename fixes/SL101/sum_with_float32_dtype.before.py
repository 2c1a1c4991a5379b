import torch


def kept_as_float(mask, rows):
    m = mask.expand(rows, -1)
    return (m != 0).sum(dtype=torch.float32)
