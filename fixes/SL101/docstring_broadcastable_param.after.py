"""Pack the elements a mask selects to the front of a flat output."""

import math
import torch
import triton
import triton.language as tl


def _narrow_broadcast(*args):
    """The tensor args as views cut to one element on each dim they all
    repeat (stride 0, size > 1), and each dim's repeat count."""
    shaped = [isinstance(a, torch.Tensor) and a.dim() > 0 for a in args]
    views = torch.broadcast_tensors(*(a for a, s in zip(args, shaped) if s))
    dims = zip(views[0].shape, *(v.stride() for v in views)) if views else ()
    reps = tuple(n if n > 1 and not any(st) else 1 for n, *st in dims)
    index = tuple(slice(1) if r > 1 else slice(None) for r in reps)
    views = iter(views)
    out = [next(views)[index] if s else a for a, s in zip(args, shaped)]
    return (*out, reps)


@triton.jit
def _pack_kernel(Out, X, Keep, stride_k0, stride_k1, N: tl.constexpr):
    pass


def pack_selected(x, keep):
    """Pack the elements of `x` that `keep` selects, row by row.

    Args:
        x: a 2-D tensor.
        keep: a bool tensor of the same shape as `x`, or broadcastable to it.
    """
    keep_small, keep_reps = _narrow_broadcast(keep)
    n_kept = int((keep_small != 0).sum() * math.prod(keep_reps))
    out = x.new_zeros(n_kept)
    _pack_kernel[(x.shape[0],)](out, x, keep, *keep.stride(), N=x.shape[1])
    return out
