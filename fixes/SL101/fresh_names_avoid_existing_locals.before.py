def count(mask, rows: int):
    m = mask.expand(rows, -1)
    m_small, m_reps = 1, 2
    return (m != 0).sum(), m_small + m_reps
