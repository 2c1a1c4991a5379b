import torch


def agreement(pred, target, weight):
    # `weight` may grow dims that `pred` and `target` both have size 1 on: along them,
    # `p == t` repeats its values, and the mean can be taken on one copy.
    p, t, w = torch.broadcast_tensors(pred, target, weight)
    return (p == t).float().mean(), w
