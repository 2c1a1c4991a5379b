"""A kernel that reads its mask through strides, handed a dense copy of a broadcast mask."""

import torch
import triton
import triton.language as tl


@triton.jit
def _scale_kernel(X, M, Out, n_cols, stride_m0, stride_m1, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=ok)
    m = tl.load(M + row * stride_m0 + cols * stride_m1, mask=ok)
    tl.store(Out + row * n_cols + cols, x * m, mask=ok)


def masked_scale(x, mask):
    """Scale each row of a contiguous x (rows, cols) by the same (cols,) mask."""
    m = mask[None, :].expand(x.shape[0], -1)
    out = torch.empty_like(x)
    _scale_kernel[(x.shape[0],)](
        x, m, out, x.shape[1], m.stride(0), m.stride(1), BLOCK=triton.next_power_of_2(x.shape[1])
    )
    return out
