def shrink_until_sparse(mask, rows: int):
    m = mask.expand(rows, -1)
    steps = 0
    while (m != 0).sum() > 4:
        m = m[1:]
        steps += 1
    return steps
