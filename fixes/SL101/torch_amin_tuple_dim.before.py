import torch


def min_margin(scores, copies, threshold: float):
    s = scores.expand(copies, *scores.shape)
    return torch.amin(s - threshold, dim=(1, 2)).min()
