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
def _rms_norm_kernel(Out, X, W, stride_w, eps, BROADCAST_W: tl.constexpr):
    pass


def rms_norm(x, weight, eps: float = 1e-6):
    out = torch.empty_like(x)
    stride_w = weight.stride(0)
    weight_small, weight_reps = _narrow_broadcast(weight)
    dead_channels = torch.count_nonzero(weight_small == 0) * math.prod(weight_reps)
    _rms_norm_kernel[(x.shape[0],)](out, x, weight, stride_w, eps, BROADCAST_W=(stride_w == 0))
    return out, dead_channels
