def weighted_count(mask, copies, weight: float):
    m = mask.expand(copies, -1)
    return ((m != 0) * weight).sum()
