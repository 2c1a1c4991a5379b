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
