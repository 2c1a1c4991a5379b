"""A masked reduce kernel whose launch-metadata hook counts loads and adds the naive way."""

import torch
import triton
import triton.language as tl


def reduce_launch_metadata(grid, kernel, args):
    X, Mask, dim = args["X"], args["Mask"], args["DIM"]
    nonzero = Mask != 0
    loads = nonzero.sum()
    adds = (nonzero.sum(dim=dim) - 1).clamp(min=0).sum()
    return {"name": f"masked_reduce dim={dim}", "flops32": adds, "bytes": loads * X.element_size()}


@triton.jit(launch_metadata=reduce_launch_metadata)
def _masked_reduce(X, Y, Mask, stride_m0, stride_m1, stride_m2, DIM, BROADCAST_M0: tl.constexpr):
    pass


def masked_reduce(x, dim, mask):
    """Sum `x` over `dim` where `mask` is non-zero.

    Args:
        x: a 3-D tensor.
        mask: an integer mask of the same shape as `x`, or broadcastable to it.
    """
    mask = mask.expand_as(x)
    y = torch.empty(x.shape[:dim] + x.shape[dim + 1 :], device=x.device, dtype=x.dtype)
    _masked_reduce[(y.numel(),)](
        x, y, mask, *mask.stride(), dim, BROADCAST_M0=mask.stride(0) == 0
    )
    return y
