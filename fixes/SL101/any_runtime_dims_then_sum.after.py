import math


def _repeats(reps, dim, reduces_all_when_empty=True):
    """The repeat count of a reduction over `dim` (an int, ints, or None):
    None reduces every dim, as does an empty sequence except for `any` and
    `all` (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return math.prod(reps)
    return math.prod(reps[d] for d in dims) if reps else 1


def rows_with_any_hit(hits, dims, copies):
    h = hits.expand(copies, -1)
    h_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(h.shape, h.stride()))
    h_small = h[tuple(slice(1) if r > 1 else slice(None) for r in h_reps)]
    return (
        (h_small != 0).any(dim=dims).sum()
        * (math.prod(h_reps) // _repeats(h_reps, dims, reduces_all_when_empty=False))
    )
