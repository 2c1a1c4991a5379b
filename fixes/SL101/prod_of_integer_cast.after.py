import math


def signed_product(choices, copies):
    c = choices.expand(copies, -1)
    c_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(c.shape, c.stride()))
    c_small = c[tuple(slice(1) if r > 1 else slice(None) for r in c_reps)]
    return c_small.long().prod() ** math.prod(c_reps)
