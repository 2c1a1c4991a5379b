"""Pack the elements a mask selects to the front of a flat output."""

import math
import torch
import triton
import triton.language as tl


def _narrow_broadcast(*tensors):
    """Narrow to size 1 every dim along which all tensor operands repeat one value (stride 0,
    size > 1), without copying; return the narrowed operands and each dim's repeat count."""
    shaped = [t for t in tensors if isinstance(t, torch.Tensor) and t.dim() > 0]
    expanded = torch.broadcast_tensors(*shaped)
    shape = expanded[0].shape if expanded else ()
    reps = tuple(
        n if n > 1 and all(t.stride(d) == 0 for t in expanded) else 1
        for d, n in enumerate(shape)
    )
    views = iter(expanded)
    narrowed = []
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.dim() > 0:
            t = next(views)
            for d, r in enumerate(reps):
                if r > 1:
                    t = t.narrow(d, 0, 1)
        narrowed.append(t)
    return (*narrowed, reps)


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
