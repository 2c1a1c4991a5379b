def rows_in_range(mask, rows: int):
    per_column = (mask.expand(rows, -1) != 0).sum(dim=0)
    return bool(0 <= per_column <= rows)
