class Masked:
    def __init__(self, mask, other):
        self.mask, self.other = mask, other

    def counts(self, rows: int):
        a = (self.mask.expand(rows, -1) != 0).sum()
        self.mask = self.other
        b = (self.mask.expand(rows, -1) != 0).sum()
        return a, b


def counts(mask, other, rows: int):
    return Masked(mask, other).counts(rows)
