import torch
import triton


@triton.jit
def _attention_kernel(Q, K, V, Out, Mask, stride_mz, stride_mm, stride_mn):
    pass


def attention(q, k, v, mask):
    density = mask.float().mean()
    out = torch.empty_like(q)
    _attention_kernel[(q.shape[0],)](q, k, v, out, mask, *mask.stride())
    return out, density
