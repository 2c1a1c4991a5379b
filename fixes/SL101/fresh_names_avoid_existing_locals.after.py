import math


def count(mask, rows: int):
    m = mask.expand(rows, -1)
    m_reps_1 = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride())
    )
    m_small_1 = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps_1)]
    m_small, m_reps = 1, 2
    return (m_small_1 != 0).sum() * math.prod(m_reps_1), m_small + m_reps
