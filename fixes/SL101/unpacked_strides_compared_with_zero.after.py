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
def _fill_kernel(Out, X, Mask, stride_m0, stride_m1, value, BCAST_M0: tl.constexpr, BCAST_M1: tl.constexpr):
    pass


def masked_fill(x, mask, value: float):
    stride_m0, stride_m1 = mask.stride()
    mask_small, mask_reps = _narrow_broadcast(mask)
    n_filled = mask_small.to(torch.int32).sum() * math.prod(mask_reps)
    out = torch.empty_like(x)
    _fill_kernel[(x.shape[0],)](
        out, x, mask, stride_m0, stride_m1, value, BCAST_M0=stride_m0 == 0, BCAST_M1=stride_m1 == 0
    )
    return out, n_filled
