def count_rows(mask, rows: int):
    """Count the set entries of `mask` repeated over `rows` rows; -1 unless it is 1-D."""
    return (mask.expand(rows, -1) != 0).sum() if mask.dim() == 1 else -1
