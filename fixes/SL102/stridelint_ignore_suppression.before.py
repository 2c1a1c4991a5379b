def suppressed(weights, rows):
    w = weights.expand(rows, -1)
    return w.sum()  # stridelint: ignore[SL102]


def other_code_does_not_suppress(weights, rows):
    w = weights.expand(rows, -1)
    return w.sum()  # stridelint: ignore[SL101]
