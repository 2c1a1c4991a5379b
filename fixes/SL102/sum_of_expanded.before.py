def total_weight(weights, rows):
    w = weights.expand(rows, -1)
    return w.sum()
