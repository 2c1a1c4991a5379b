import math


def suppressed(mask, n):
    m = mask.expand(n, -1)
    return (m != 0).sum()  # noqa: SL101


def other_code_does_not_suppress(mask, n):
    m = mask.expand(n, -1)
    m_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride()))
    m_small = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps)]
    return (m_small != 0).sum() * math.prod(m_reps)  # noqa: SL102
