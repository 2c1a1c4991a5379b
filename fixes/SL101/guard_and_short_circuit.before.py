def count_rows(mask, rows: int):
    return mask is not None and (mask.expand(rows, -1) != 0).sum()
