import torch


def extra_adds_of_counts(mask, dim, rows: int):
    """The per-row sums are of an int tensor, not a bool one: the fix does not rewrite them
    into kept minus non-empty rows, and rescales each reduction as it stands."""
    counts = (mask.expand(rows, -1, -1) > 0).int()
    return (counts.sum(dim=dim) - 1).clamp(min=0).sum()


def extra_adds_and_widest_row(mask, dim, rows: int):
    """The per-row counts are read twice: they stay, rescaled."""
    kept = mask.expand(rows, -1, -1) != 0
    per_row = kept.sum(dim=dim)
    return (per_row - 1).clamp(min=0).sum(), per_row.amax()


def extra_adds_commented(mask, dim, rows: int):
    """A comment stands between the per-row counts and their one read: they stay."""
    kept = mask.expand(rows, -1, -1) != 0
    per_row = kept.sum(dim=dim)
    # one addition fewer than the kept entries of each row
    return (per_row - 1).clamp(min=0).sum()
