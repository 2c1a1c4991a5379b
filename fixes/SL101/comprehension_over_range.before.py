def repeated_counts(mask, rows: int, k: int):
    m = mask.expand(rows, -1)
    return [(m != 0).sum() for _ in range(k)]
