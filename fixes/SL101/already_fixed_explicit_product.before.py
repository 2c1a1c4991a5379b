import torch
import triton


@triton.jit
def _select_kernel(Out, X, Mask, stride_m0, stride_m1):
    pass


def select(x, mask):
    """Zero the elements of `x` where `mask` is 0.

    Args:
        mask: same shape as `x`, or broadcastable to it.
    """
    m, copies = mask, 1
    for axis in range(m.dim()):
        if m.stride(axis) == 0 and m.size(axis) > 1:
            copies = copies * m.size(axis)
            m = m.narrow(axis, 0, 1)
    kept = (m != 0).sum() * copies
    out = torch.empty_like(x)
    _select_kernel[(x.shape[0],)](out, x, mask, *mask.stride())
    return out, kept
