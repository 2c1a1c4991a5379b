import math
import torch
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


def _repeated_sum(t, repeats, *args, **kwargs):
    """`t.sum(...) * repeats`, with float16/bfloat16 accumulated in float32 and rounded once,
    as the sum over every repeated copy would be."""
    if t.dtype in (torch.float16, torch.bfloat16) and "dtype" not in kwargs:
        return (t.sum(*args, dtype=torch.float32, **kwargs) * repeats).to(t.dtype)
    return t.sum(*args, **kwargs) * repeats


def spread_from_half(x, copies):
    xb = x.expand(copies, -1)
    xb_small, xb_reps = _narrow_broadcast(xb)
    mu = xb_small.double().nanmean(dim=1, keepdim=True)
    return _repeated_sum((mu - 0.5).abs(), math.prod(xb_reps) // xb_reps[1])
