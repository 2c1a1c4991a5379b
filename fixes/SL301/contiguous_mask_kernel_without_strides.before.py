"""The kernel indexes the mask as dense memory: the copy is needed."""

import torch
import triton
import triton.language as tl


@triton.jit
def _scale_kernel(X, M, Out, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=ok)
    m = tl.load(M + row * n_cols + cols, mask=ok)
    tl.store(Out + row * n_cols + cols, x * m, mask=ok)


def masked_scale(x, mask):
    m = mask[None, :].expand(x.shape[0], -1).contiguous()
    out = torch.empty_like(x)
    _scale_kernel[(x.shape[0],)](x, m, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out
