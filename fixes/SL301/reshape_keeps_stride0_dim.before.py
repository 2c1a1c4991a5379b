import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(K, sk0, sk1, sk2, sk3):
    pass


def merge_trailing(k, n_rep):
    """Merging the two trailing (dense) dims keeps the stride-0 dim: a view, no copy."""
    batch, heads, seq, dim = k.shape
    kk = k[:, :, None].expand(batch, heads, n_rep, seq, dim).reshape(batch, heads, n_rep, seq * dim)
    _kernel[(batch,)](kk, *kk.stride())
