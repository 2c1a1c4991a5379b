"""The common case: one tensor that a broadcast op of the function made. The fix writes
the narrowing out, two short lines, instead of adding a helper to the module."""

import torch


def active_rows(row_mask: torch.Tensor, batch: int) -> torch.Tensor:
    m = row_mask.expand(batch, -1)
    return (m != 0).sum(dim=-1).amax()
