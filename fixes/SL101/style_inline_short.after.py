"""The common case: one tensor that a broadcast op of the function made. The fix writes
the narrowing out, two short lines, instead of adding a helper to the module."""

import torch


def active_rows(row_mask: torch.Tensor, batch: int) -> torch.Tensor:
    m = row_mask.expand(batch, -1)
    m_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride()))
    m_small = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps)]
    return ((m_small != 0).sum(dim=-1) * m_reps[-1]).amax()
