def total_row_peaks(x, copies):
    xb = x.expand(copies, -1)
    return (xb + 0).max(dim=1).values.sum()
