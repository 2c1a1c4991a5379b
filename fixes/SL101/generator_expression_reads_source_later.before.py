def lazy_counts(mask, rows: int, k: int):
    m = mask.expand(rows, -1)
    counts = ((m != 0).sum() for _ in range(k))
    m = m[:1]
    return list(counts)
