def rows_with_a_hit(mask, rows: int, dim):
    m = mask.expand(rows, -1)
    return m.any(dim=dim).sum()
