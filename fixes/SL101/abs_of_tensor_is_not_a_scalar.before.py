def weighted_hits(mask, rows: int, weights):
    m = mask.expand(rows, -1)
    per_row = (m * abs(weights)).count_nonzero(dim=1)
    return (per_row - 1).clamp(min=0).sum()
