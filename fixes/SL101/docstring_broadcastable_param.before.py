"""Pack the elements a mask selects to the front of a flat output."""

import torch
import triton
import triton.language as tl


@triton.jit
def _pack_kernel(Out, X, Keep, stride_k0, stride_k1, N: tl.constexpr):
    pass


def pack_selected(x, keep):
    """Pack the elements of `x` that `keep` selects, row by row.

    Args:
        x: a 2-D tensor.
        keep: a bool tensor of the same shape as `x`, or broadcastable to it.
    """
    n_kept = int((keep != 0).sum())
    out = x.new_zeros(n_kept)
    _pack_kernel[(x.shape[0],)](out, x, keep, *keep.stride(), N=x.shape[1])
    return out
