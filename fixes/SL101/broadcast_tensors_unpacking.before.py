import torch


def agreement(pred, target):
    p, t = torch.broadcast_tensors(pred, target)
    return (p == t).float().mean()
