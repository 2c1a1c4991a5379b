import math


def active_gates(gates, n, by_row: bool):
    if by_row:
        s = gates.expand(n, -1)
    else:
        s = gates.unsqueeze(1).expand(-1, n)
    s_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(s.shape, s.stride()))
    s_small = s[tuple(slice(1) if r > 1 else slice(None) for r in s_reps)]
    return (s_small != 0).sum() * math.prod(s_reps)
