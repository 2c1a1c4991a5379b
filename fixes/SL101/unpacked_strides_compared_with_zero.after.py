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
