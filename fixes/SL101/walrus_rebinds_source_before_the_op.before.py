def transposed_counts(mask, rows: int):
    m = mask.expand(rows, -1)
    return (m := m.t()).shape, (m != 0).sum(dim=0).sum()
