import torch


def count(mask, n)
    return (mask.expand(n, -1) != 0).sum()
