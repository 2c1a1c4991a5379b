import torch
import triton
import triton.language as tl


@triton.jit
def _fill_kernel(Out, X, Mask, stride_m0, stride_m1, value, BCAST_M0: tl.constexpr, BCAST_M1: tl.constexpr):
    pass


def masked_fill(x, mask, value: float):
    stride_m0, stride_m1 = mask.stride()
    n_filled = mask.to(torch.int32).sum()
    out = torch.empty_like(x)
    _fill_kernel[(x.shape[0],)](
        out, x, mask, stride_m0, stride_m1, value, BCAST_M0=stride_m0 == 0, BCAST_M1=stride_m1 == 0
    )
    return out, n_filled
