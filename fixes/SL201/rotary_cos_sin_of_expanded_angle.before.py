"""cos and sin tables computed on an expanded angle: full size, and rounded by another path."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_kernel(X, Cos, Sin, Out, half, stride_c0, stride_c1, stride_s0, stride_s1, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < half
    x1 = tl.load(X + row * 2 * half + cols, mask=ok)
    x2 = tl.load(X + row * 2 * half + half + cols, mask=ok)
    cos = tl.load(Cos + row * stride_c0 + cols * stride_c1, mask=ok)
    sin = tl.load(Sin + row * stride_s0 + cols * stride_s1, mask=ok)
    tl.store(Out + row * 2 * half + cols, x1 * cos - x2 * sin, mask=ok)
    tl.store(Out + row * 2 * half + half + cols, x1 * sin + x2 * cos, mask=ok)


def rotate_rows(x, angle):
    """Rotate every row of a contiguous fp32 x (rows, dim) by the same (dim // 2,) angles."""
    rows, dim = x.shape
    theta = angle[None, :].expand(rows, dim // 2)
    cos = torch.cos(theta)
    sin = torch.sin(theta)
    out = torch.empty_like(x)
    _rotate_kernel[(rows,)](
        x, cos, sin, out, dim // 2, *cos.stride(), *sin.stride(),
        BLOCK=triton.next_power_of_2(dim // 2),
    )
    return out
