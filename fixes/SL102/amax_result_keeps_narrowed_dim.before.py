def row_peaks(x, rows):
    xb = x.expand(rows, -1)
    return xb.amax(dim=1)
