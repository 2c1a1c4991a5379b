from operator import mul as _repeats


def extra_adds(mask, rows: int, dim):
    m = mask.expand(rows, -1) != 0
    return (m.sum(dim=dim) - 1).clamp(min=0).sum()


def area(width, height):
    return _repeats(width, height)
