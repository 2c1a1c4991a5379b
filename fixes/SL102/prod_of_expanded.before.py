import torch


def joint_probability(p, trials):
    pt = torch.broadcast_to(p, (trials, *p.shape))
    return pt.prod()
