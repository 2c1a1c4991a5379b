import math
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


@triton.jit
def _dropout_kernel(Out, X, Keep, stride_k0, stride_k1, p):
    pass


def _kept(keep):
    keep_small, keep_reps = _narrow_broadcast(keep)
    return (keep_small != 0).sum() * math.prod(keep_reps)


def dropout(x, keep, p: float):
    """Zero the elements of `x` where `keep` is 0 and rescale the rest by 1 / (1 - p).

    Args:
        keep: a bool mask broadcastable to `x`.
    """
    n_kept = _kept(keep)
    out = torch.empty_like(x)
    _dropout_kernel[(x.shape[0],)](out, x, keep, *keep.stride(), p)
    return out, n_kept
