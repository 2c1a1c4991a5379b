def count_rows(mask, rows: int, wanted: bool):
    m = mask.expand(rows, -1)
    return (m != 0).sum() if wanted else None
