import torch
from torch.distributions.utils import broadcast_all


def hamilton_product(q, r):
    # Every dim `broadcast_tensors` grows is dense in `q` or in `r`: a product of the two,
    # lined up alike, holds a different value at every position. It is the output, no waste.
    q, r = torch.broadcast_tensors(q, r)
    w = q[..., 0] * r[..., 0] - q[..., 1] * r[..., 1] - q[..., 2] * r[..., 2] - q[..., 3] * r[..., 3]
    x = q[..., 0] * r[..., 1] + q[..., 1] * r[..., 0] + q[..., 2] * r[..., 3] - q[..., 3] * r[..., 2]
    return torch.stack([w, x], dim=-1)


def binomial_moments(total_count, probs):
    # `total_count * probs` is the output; `1 - probs` repeats `probs`' values wherever only
    # `total_count` grew: that op is worth doing before the two are lined up.
    total_count, probs = broadcast_all(total_count, probs)
    mean = total_count * probs
    return mean, mean * (1 - probs)


def two_of_three(a, b, c):
    # `c` may grow dims that `a` and `b` share: their product still repeats values.
    a, b, c = torch.broadcast_tensors(a, b, c)
    return a * b + c


def docstring_says_broadcast(q, r):
    """`q` and `r` may be broadcast already (stride-0 views from the caller): the product
    of the two can repeat values along dims they share, so it is still reported."""
    q, r = torch.broadcast_tensors(q, r)
    return q * r
