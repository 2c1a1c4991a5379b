import math


def counts(grid, kernel, args):
    mask = args["Mask"]
    dim = args["DIM"]
    reps = [1] * mask.ndim
    for d in range(mask.ndim):
        if mask.stride(d) == 0 and mask.shape[d] > 1:
            reps[d] = mask.shape[d]
            mask = mask.narrow(d, 0, 1)
    m = mask != 0
    return m.sum() * math.prod(reps)


def narrowed_too_late(x, n):
    e = x.expand(n, -1)
    m = (e != 0).narrow(0, 0, 1)
    return m.sum()
