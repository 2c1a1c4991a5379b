import torch


def doubled_kept_values(keep, values, rows):
    """`rows` copies of 2 * values (cols,), zeroed where keep (cols,) is False."""
    m = keep[None, :].expand(rows, -1)
    v = values[None, :].expand(rows, -1)
    picked = torch.where(m, v, 0.0)
    return picked * 2
