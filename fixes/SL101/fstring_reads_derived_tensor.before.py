def describe(mask, rows: int):
    m = mask.expand(rows, -1) != 0
    text = f"mask of shape {tuple(m.shape)}"
    return m.sum(), text
