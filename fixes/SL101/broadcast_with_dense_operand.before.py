import torch


def weighted_hits(mask, weights, n):
    m = mask.expand(n, -1)
    dense = torch.ones(n, mask.shape[-1])
    return (m * weights).sum(), (m * dense).sum()
