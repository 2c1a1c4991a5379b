"""With `helper-module = "mylib._broadcast"`, the fixes import the helpers from that
module (written once by `stridelint helpers`) instead of pasting them here. The
narrowing of a parameter that may not be a tensor needs the helper."""

import torch


def masked_count(mask: torch.Tensor, dim: int) -> torch.Tensor:
    """Count the set entries of `mask` along `dim`, then in all.

    Args:
        mask: a broadcastable mask.
    """
    per_row = (mask != 0).sum(dim=dim)
    return (per_row > 0).sum()
