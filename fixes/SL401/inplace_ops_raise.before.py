import torch


def bump(bias, rows):
    b = bias[None, :].expand(rows, -1)
    b.add_(1)
    b.copy_(torch.zeros(rows, bias.shape[0]))
    b += 1
    b.clamp_(min=0)
    return b
