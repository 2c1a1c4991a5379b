import math as m


def count(mask, rows: int):
    m = mask.expand(rows, -1)
    return (m != 0).sum()


def circle(radius):
    return m.pi * radius**2
