"""With `helper-module = "mylib._broadcast"`, the fixes import the helpers from that
module (written once by `stridelint helpers`) instead of pasting them here. The
narrowing of a parameter that may not be a tensor needs the helper."""

import math
import torch
from mylib._broadcast import narrow_broadcast, repeats


def masked_count(mask: torch.Tensor, dim: int) -> torch.Tensor:
    """Count the set entries of `mask` along `dim`, then in all.

    Args:
        mask: a broadcastable mask.
    """
    mask_small, mask_reps = narrow_broadcast(mask)
    per_row = (mask_small != 0).sum(dim=dim) * repeats(mask_reps, dim)
    return (per_row > 0).sum() * (math.prod(mask_reps) // repeats(mask_reps, dim))
