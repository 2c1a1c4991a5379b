def classify(mask, rows: int, empty: bool):
    m = mask.expand(rows, -1)
    if empty:
        return "empty"
    elif (m != 0).any():
        return "hit"
    return "miss"
