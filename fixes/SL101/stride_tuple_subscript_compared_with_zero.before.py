import torch
import triton
import triton.language as tl


@triton.jit
def _weighted_rowsum_kernel(Out, X, W, stride_w0, stride_w1, SHARED_W: tl.constexpr):
    pass


def weighted_rowsum(x, w):
    shared = w.stride()[0] == 0
    total_weight = w.abs().sum(dim=-1)
    out = torch.zeros(x.shape[0], device=x.device, dtype=torch.float32)
    _weighted_rowsum_kernel[(x.shape[0],)](out, x, w, *w.stride(), SHARED_W=shared)
    return out / total_weight
