def has_odd_flag(flags, n):
    f = flags.expand(n, -1)
    return bool((f % 2 == 1).any())
