"""Grouped-query attention: K and V repeated for every query head of their group."""

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd(Q, K, V, O, sq0, sq1, sq2, sk0, sk1, sk2, sv0, sv1, sv2, so0, so1, so2, BLOCK: tl.constexpr):
    pass


def gqa_attention(q, k, v, n_rep):
    """q: (batch, heads * n_rep, seq, dim); k and v: (batch, heads, seq, dim)."""
    batch, heads, seq, dim = k.shape
    k = k[:, :, None].expand(batch, heads, n_rep, seq, dim).reshape(batch, heads * n_rep, seq, dim)
    v = v[:, :, None].expand(batch, heads, n_rep, seq, dim).reshape(batch, heads * n_rep, seq, dim)
    o = torch.empty_like(q)
    _attn_fwd[(batch * heads * n_rep,)](
        q, k, v, o, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *o.stride()[:3], BLOCK=64
    )
    return o
