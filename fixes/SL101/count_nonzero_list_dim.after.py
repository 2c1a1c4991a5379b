import math
import torch


def _repeats(reps, dim, reduces_all_when_empty=True):
    """The repeat count of a reduction over `dim` (an int, ints, or None):
    None reduces every dim, as does an empty sequence except for `any` and
    `all` (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return math.prod(reps)
    return math.prod(reps[d] for d in dims) if reps else 1


def columns_hit(hits, repeat):
    tiled = hits[None].expand(repeat, *hits.shape)
    tiled_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(tiled.shape, tiled.stride())
    )
    tiled_small = tiled[tuple(slice(1) if r > 1 else slice(None) for r in tiled_reps)]
    per_column = (
        torch.count_nonzero(tiled_small > 0, dim=[0, 1]) * _repeats(tiled_reps, [0, 1])
    )
    return (
        (per_column > 0).sum() * (math.prod(tiled_reps) // _repeats(tiled_reps, [0, 1]))
    )
