import math

import torch
import triton


@triton.jit
def _select_kernel(Out, X, Mask, stride_m0, stride_m1):
    pass


def select(x, mask):
    """Zero the elements of `x` where `mask` is 0.

    Args:
        mask: same shape as `x`, or broadcastable to it.
    """
    reps = [n if s == 0 and n > 1 else 1 for n, s in zip(mask.shape, mask.stride())]
    small = mask
    for d, r in enumerate(reps):
        if r > 1:
            small = small.narrow(d, 0, 1)
    kept = (small != 0).sum() * math.prod(reps)
    out = torch.empty_like(x)
    _select_kernel[(x.shape[0],)](out, x, mask, *mask.stride())
    return out, kept
