import math


def checked_count(mask, rows: int):
    m = mask.expand(rows, -1)
    m_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride()))
    m_small = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps)]
    assert (m_small >= 0).all(), "negative mask"
    return (m_small != 0).sum() * math.prod(m_reps)
