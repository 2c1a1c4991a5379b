def checked_count(mask, rows: int):
    m = mask.expand(rows, -1)
    assert (m >= 0).all(), "negative mask"
    return (m != 0).sum()
