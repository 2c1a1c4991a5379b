import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(Out, X, W, stride_w, eps, BROADCAST_W: tl.constexpr):
    pass


def rms_norm(x, weight, eps: float = 1e-6):
    out = torch.empty_like(x)
    stride_w = weight.stride(0)
    dead_channels = torch.count_nonzero(weight == 0)
    _rms_norm_kernel[(x.shape[0],)](out, x, weight, stride_w, eps, BROADCAST_W=(stride_w == 0))
    return out, dead_channels
