import math
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
