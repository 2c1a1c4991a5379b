import torch


def mean_gap(x, y):
    a, b = torch.broadcast_tensors(x, y)
    return a.mean() - b.mean()
