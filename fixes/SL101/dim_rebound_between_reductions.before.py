def extra_adds(mask, rows: int, dim: int):
    m = mask.expand(rows, -1) != 0
    per_row = m.sum(dim=dim)
    dim = 1 - dim
    return (per_row - 1).clamp(min=0).sum(), dim
