import torch
import triton
import triton.language as tl


@triton.jit
def _bias_add_kernel(Out, X, Bias, stride_bm, stride_bn, BIAS_PER_ROW: tl.constexpr):
    pass


def bias_add(x, bias):
    per_row = bias.stride(1) == 0
    if (~torch.isfinite(bias)).any():
        raise ValueError("bias_add: bias has inf or nan entries")
    out = torch.empty_like(x)
    _bias_add_kernel[(x.shape[0],)](out, x, bias, *bias.stride(), BIAS_PER_ROW=per_row)
    return out
