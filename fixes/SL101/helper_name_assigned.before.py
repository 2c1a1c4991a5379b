_narrow_broadcast = "not a function"


def count(mask, rows: int):
    return (mask.expand(rows, -1) != 0).sum()


def label():
    return _narrow_broadcast
