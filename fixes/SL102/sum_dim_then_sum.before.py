def rows_above(x, rows, limit: float):
    xb = x.unsqueeze(0).expand(rows, *x.shape)
    per_row = xb.sum(dim=1)
    return (per_row > limit).sum()
