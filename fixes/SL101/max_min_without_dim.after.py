import torch


def value_range(x, copies):
    xb = x.expand(copies, *x.shape)
    xb_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(xb.shape, xb.stride())
    )
    xb_small = xb[tuple(slice(1) if r > 1 else slice(None) for r in xb_reps)]
    lo = (xb_small * 2).min()
    hi = torch.max(xb_small * 2)
    return lo, hi
