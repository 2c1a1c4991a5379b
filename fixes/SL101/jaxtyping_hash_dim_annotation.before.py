from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import triton

if TYPE_CHECKING:
    from jaxtyping import Bool, Float
    from torch import Tensor


@triton.jit
def _masked_softmax_kernel(Out, X, Mask, stride_mb, stride_mn, N):
    pass


def masked_softmax(x: Float[Tensor, "b n"], mask: Bool[Tensor, "#b n"]) -> Float[Tensor, "b n"]:
    if (~mask).all(dim=-1).any():
        raise ValueError("masked_softmax: a row is fully masked")
    out = torch.empty_like(x)
    _masked_softmax_kernel[(x.shape[0],)](out, x, mask, *mask.stride(), x.shape[1])
    return out
