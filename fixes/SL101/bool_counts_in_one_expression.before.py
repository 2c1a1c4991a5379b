import torch


def kept_and_extra(mask, rows: int):
    """Kept entries of `mask` repeated over `rows` rows, and the additions a sum over dim 1
    makes of them: one less than the kept entries of each row that keeps any."""
    kept = mask.expand(rows, -1, -1) > 0
    return torch.sum(kept), (kept.sum(1) - 1).clamp_min(0).sum()


def kept_if_any_extra(mask, rows: int):
    """The kept entries when a sum over dims 0 and 2 makes any addition, through per-row
    counts that only the next statement reads."""
    kept = mask.expand(rows, -1, -1) != 0
    per_row = torch.sum(kept, dim=(0, 2))
    if (per_row - 1).clamp(min=0).sum() > 0:
        return torch.count_nonzero(kept)
    return None
