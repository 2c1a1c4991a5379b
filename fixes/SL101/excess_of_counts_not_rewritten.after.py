import math
import torch


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


def _repeats(reps, dim, reduces_all_when_empty=True):
    """The repeat count of a reduction over `dim` (an int, ints, or None):
    None reduces every dim, as does an empty sequence except for `any` and
    `all` (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return math.prod(reps)
    return math.prod(reps[d] for d in dims) if reps else 1


def extra_adds_of_counts(mask, dim, rows: int):
    """The per-row sums are of an int tensor, not a bool one: the fix does not rewrite them
    into kept minus non-empty rows, and rescales each reduction as it stands."""
    mask_small, mask_reps = _narrow_broadcast(mask.expand(rows, -1, -1))
    counts = (mask_small > 0).int()
    return (
        (counts.sum(dim=dim) * _repeats(mask_reps, dim) - 1).clamp(min=0).sum()
        * (math.prod(mask_reps) // _repeats(mask_reps, dim))
    )


def extra_adds_and_widest_row(mask, dim, rows: int):
    """The per-row counts are read twice: they stay, rescaled."""
    mask_small, mask_reps = _narrow_broadcast(mask.expand(rows, -1, -1))
    kept = mask_small != 0
    per_row = kept.sum(dim=dim) * _repeats(mask_reps, dim)
    return (
        (per_row - 1).clamp(min=0).sum()
        * (math.prod(mask_reps) // _repeats(mask_reps, dim))
    ), per_row.amax()


def extra_adds_commented(mask, dim, rows: int):
    """A comment stands between the per-row counts and their one read: they stay."""
    mask_small, mask_reps = _narrow_broadcast(mask.expand(rows, -1, -1))
    kept = mask_small != 0
    per_row = kept.sum(dim=dim) * _repeats(mask_reps, dim)
    # one addition fewer than the kept entries of each row
    return (
        (per_row - 1).clamp(min=0).sum()
        * (math.prod(mask_reps) // _repeats(mask_reps, dim))
    )
