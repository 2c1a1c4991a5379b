import math
import functools

import torch
import triton


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


def count_metadata(grid, kernel, args):
    Mask = args["Mask"]
    if Mask is None:
        return {}
    Mask_small, Mask_reps = _narrow_broadcast(Mask)
    return {"count": ((Mask_small > 0).sum() * math.prod(Mask_reps)).item()}


@triton.jit(launch_metadata=count_metadata)
def _count_rows(X, Y, Mask, N):
    pass


@triton.jit(launch_metadata=count_metadata)
def _count_cols(X, Y, Mask, N):
    pass


KERNELS = {"rows": _count_rows, "cols": _count_cols}


def count(x, mask, axis):
    """Count masked entries.

    Args:
        mask (Tensor): a bool mask that may be broadcast over `x`.
    """
    y = torch.empty(x.shape[0], device=x.device)
    run = functools.partial(KERNELS.get(axis)[(x.shape[0],)], x, y)
    run(mask, x.numel())
    return y
