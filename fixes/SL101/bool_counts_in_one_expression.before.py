import torch


def kept_and_extra(mask, rows: int):
    """Kept entries of `mask` repeated over `rows` rows, and the additions a sum over dim 1
    makes of them: one less than the kept entries of each row that keeps any."""
    kept = mask.expand(rows, -1, -1) > 0
    return torch.sum(kept), (kept.sum(1) - 1).clamp_min(0).sum()
