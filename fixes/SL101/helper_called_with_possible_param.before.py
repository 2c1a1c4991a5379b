import torch
import triton


@triton.jit
def _dropout_kernel(Out, X, Keep, stride_k0, stride_k1, p):
    pass


def _kept(keep):
    return (keep != 0).sum()


def dropout(x, keep, p: float):
    """Zero the elements of `x` where `keep` is 0 and rescale the rest by 1 / (1 - p).

    Args:
        keep: a bool mask broadcastable to `x`.
    """
    n_kept = _kept(keep)
    out = torch.empty_like(x)
    _dropout_kernel[(x.shape[0],)](out, x, keep, *keep.stride(), p)
    return out, n_kept
