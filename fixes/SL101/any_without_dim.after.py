def has_odd_flag(flags, n):
    f = flags.expand(n, -1)
    f_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(f.shape, f.stride()))
    f_small = f[tuple(slice(1) if r > 1 else slice(None) for r in f_reps)]
    return bool((f_small % 2 == 1).any())
