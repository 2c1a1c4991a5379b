from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import triton


def _narrow_broadcast(*args):
    """The tensor args as views cut to one element on each dim they all
    repeat (stride 0, size > 1), and each dim's repeat count."""
    shaped = [isinstance(a, torch.Tensor) and a.dim() > 0 for a in args]
    views = torch.broadcast_tensors(*(a for a, s in zip(args, shaped) if s))
    dims = zip(views[0].shape, *(v.stride() for v in views)) if views else ()
    reps = tuple(n if n > 1 and not any(st) else 1 for n, *st in dims)
    index = tuple(slice(1) if r > 1 else slice(None) for r in reps)
    views = iter(views)
    out = [next(views)[index] if s else a for a, s in zip(args, shaped)]
    return (*out, reps)

if TYPE_CHECKING:
    from jaxtyping import Bool, Float
    from torch import Tensor


@triton.jit
def _masked_softmax_kernel(Out, X, Mask, stride_mb, stride_mn, N):
    pass


def masked_softmax(x: Float[Tensor, "b n"], mask: Bool[Tensor, "#b n"]) -> Float[Tensor, "b n"]:
    mask_small, mask_reps = _narrow_broadcast(mask)
    if (~mask_small).all(dim=-1).any():
        raise ValueError("masked_softmax: a row is fully masked")
    out = torch.empty_like(x)
    _masked_softmax_kernel[(x.shape[0],)](out, x, mask, *mask.stride(), x.shape[1])
    return out
