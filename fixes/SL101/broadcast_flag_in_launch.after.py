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
def _rms_norm_kernel(Out, X, W, stride_w, eps, BROADCAST_W: tl.constexpr):
    pass


def rms_norm(x, weight, eps: float = 1e-6):
    out = torch.empty_like(x)
    stride_w = weight.stride(0)
    weight_small, weight_reps = _narrow_broadcast(weight)
    dead_channels = torch.count_nonzero(weight_small == 0) * math.prod(weight_reps)
    _rms_norm_kernel[(x.shape[0],)](out, x, weight, stride_w, eps, BROADCAST_W=(stride_w == 0))
    return out, dead_channels
