import torch
import triton
import triton.language as tl


@triton.jit
def _fill_kernel(Out, M, stride_o0, stride_o1, stride_m0, stride_m1):
    pass


def fill_from_mask(mask, rows):
    """The kernel writes into `out`: it needs its full size."""
    m = mask[None, :].expand(rows, -1)
    out = torch.empty_like(m)
    _fill_kernel[(rows,)](out, m, *out.stride(), *m.stride())
    return out
