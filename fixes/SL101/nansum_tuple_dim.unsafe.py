import math


def _repeats(reps, dim, reduces_all_when_empty=True):
    """The repeat count of a reduction over `dim` (an int, ints, or None):
    None reduces every dim, as does an empty sequence except for `any` and
    `all` (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return math.prod(reps)
    return math.prod(reps[d] for d in dims) if reps else 1


def peak_channel_energy(x, batch):
    xb = x.unsqueeze(0).expand(batch, *x.shape)
    xb_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(xb.shape, xb.stride())
    )
    xb_small = xb[tuple(slice(1) if r > 1 else slice(None) for r in xb_reps)]
    energy = xb_small.abs().nansum(dim=(0, 2)) * _repeats(xb_reps, (0, 2))
    return energy.max()
