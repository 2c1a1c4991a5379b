import torch
import triton
import triton.language as tl


@triton.jit
def _blend_kernel(A, B, Out, n, BLOCK: tl.constexpr):
    pass


def _run_blend(a, b, out):
    """The wrapper's launch helper: flat indexing, so it takes dense operands."""
    n = out.numel()
    _blend_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)


def _run_blend_strided(a, b, out):
    n = out.numel()
    _blend_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, *a.stride(), *b.stride(), BLOCK=1024)


def blend(a, b):
    shape = torch.broadcast_shapes(a.shape, b.shape)
    out = torch.empty(shape, device=a.device, dtype=a.dtype)
    a_full = a.expand(shape).contiguous()
    b_full = b.expand(shape).contiguous()
    _run_blend(a_full, b=b_full, out=out)
    return out


def blend_strided(a, b):
    # the helper receives the strides: the copies only escape into a call, low severity
    shape = torch.broadcast_shapes(a.shape, b.shape)
    out = torch.empty(shape, device=a.device, dtype=a.dtype)
    _run_blend_strided(a.expand(shape).contiguous(), b.expand(shape).contiguous(), out)
    return out
