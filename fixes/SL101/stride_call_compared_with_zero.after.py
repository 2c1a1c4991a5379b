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
def _bias_add_kernel(Out, X, Bias, stride_bm, stride_bn, BIAS_PER_ROW: tl.constexpr):
    pass


def bias_add(x, bias):
    per_row = bias.stride(1) == 0
    bias_small, bias_reps = _narrow_broadcast(bias)
    if (~torch.isfinite(bias_small)).any():
        raise ValueError("bias_add: bias has inf or nan entries")
    out = torch.empty_like(x)
    _bias_add_kernel[(x.shape[0],)](out, x, bias, *bias.stride(), BIAS_PER_ROW=per_row)
    return out
