import torch
import triton


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
def _where_kernel(Out, Cond, A, B, stride_c0, stride_c1):
    pass


def select_rows(cond, a, b):
    """`torch.where(cond, a, b)` for 2-D operands.

    Args:
        cond: a bool tensor broadcastable to `a`.
    """
    cond_small, cond_reps = _narrow_broadcast(cond)
    if cond_small.all():
        return a.clone()
    if not cond_small.any():
        return b.clone()
    out = torch.empty_like(a)
    _where_kernel[(a.shape[0],)](out, cond, a, b, *cond.stride())
    return out
