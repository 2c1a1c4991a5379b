import torch


def doubled_kept_values(keep, values, rows):
    """`rows` copies of 2 * values (cols,), zeroed where keep (cols,) is False."""
    m = keep[None, :].expand(rows, -1)
    v = values[None, :].expand(rows, -1)
    picked = torch.where(keep[None, :], values[None, :], 0.0).expand(torch.broadcast_shapes(m.shape, v.shape))
    return (torch.where(keep[None, :], values[None, :], 0.0) * 2).expand_as(picked)
