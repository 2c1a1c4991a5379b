import torch
from torch.distributions.utils import broadcast_all


def log_normal_scale(loc, scale):
    """`broadcast_all` returns stride-0 views; `exp` of one writes its full logical size."""
    loc, scale = broadcast_all(loc, scale)
    return loc, scale.exp()
