def extra_adds(mask, rows):
    m = mask.expand(rows, -1) != 0
    total = m.sum()
    adds = (m.sum(dim=0) - 1).clamp(min=0).sum()
    return total, adds
