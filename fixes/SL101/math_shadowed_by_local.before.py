def count(mask, rows: int):
    math = "a local that is not the module"
    m = mask.expand(rows, -1)
    return (m != 0).sum(), math
