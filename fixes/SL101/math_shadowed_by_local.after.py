import math as _math


def count(mask, rows: int):
    math = "a local that is not the module"
    m = mask.expand(rows, -1)
    m_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride()))
    m_small = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps)]
    return (m_small != 0).sum() * _math.prod(m_reps), math
