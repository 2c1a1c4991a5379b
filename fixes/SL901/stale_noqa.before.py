import torch


def count(mask, n):
    e = mask.expand(n, -1)
    kept = (e != 0).sum()  # noqa: SL101
    total = e.numel()  # noqa: SL101, E501
    return kept, total  # noqa
