def valid_per_row(mask, rows):
    m = mask.expand(rows, -1)
    counts = (m != 0).sum(dim=1, keepdim=True)
    return counts
