import torch


def edit(row, rows, i):
    e = row[None, :].expand(rows, -1)
    e[i] = torch.ones(row.shape[0])
    e[0, 1] = 5.0
    e[:, 0] = 1.0
    e[...] = 0.0
    c = row[:, None].expand(-1, rows)
    c[:, 0] = 2.0
    c[0] = 3.0
    return e, c
