def row_stats(row_mask, n_cols):
    mask = row_mask[:, None].expand(-1, n_cols)
    count = lambda: (mask != 0).sum()
    mask = mask.contiguous()
    return count()
