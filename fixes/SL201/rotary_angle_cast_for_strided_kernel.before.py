"""A rotary embedding whose angle table is broadcast over batch and heads, then cast to fp32."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_kernel(
    X, Angle, Out, heads, seq, half, stride_a0, stride_a1, stride_a2, stride_a3, BLOCK: tl.constexpr
):
    row = tl.program_id(0)
    b, h, s = row // (heads * seq), (row // seq) % heads, row % seq
    cols = tl.arange(0, BLOCK)
    ok = cols < half
    x1 = tl.load(X + row * 2 * half + cols, mask=ok)
    x2 = tl.load(X + row * 2 * half + half + cols, mask=ok)
    base = b * stride_a0 + h * stride_a1 + s * stride_a2
    angle = tl.load(Angle + base + cols * stride_a3, mask=ok)
    cos, sin = tl.cos(angle), tl.sin(angle)
    tl.store(Out + row * 2 * half + cols, x1 * cos - x2 * sin, mask=ok)
    tl.store(Out + row * 2 * half + half + cols, x1 * sin + x2 * cos, mask=ok)


def apply_rotary(x, angle):
    """Rotate the last dim of a contiguous fp32 x (batch, heads, seq, dim) by a (seq, dim // 2)
    angle table."""
    batch, heads, seq, dim = x.shape
    angle32 = angle[None, None].expand(batch, heads, seq, dim // 2).float()
    out = torch.empty_like(x)
    _rotate_kernel[(batch * heads * seq,)](
        x, angle32, out, heads, seq, dim // 2, *angle32.stride(),
        BLOCK=triton.next_power_of_2(dim // 2),
    )
    return out
