# With `low-severity = true`: copies of a broadcast that the next op writes at their size
# anyway are not worth a finding (joined) or are low severity (a gather's index).
import torch


def ray_directions(xs, ys, frames: int):
    """`torch.stack` writes the ones at their full size anyway: no finding."""
    x_grid = xs[None].expand(frames, -1, -1)
    y_grid = ys[None].expand(frames, -1, -1)
    return torch.stack([x_grid, y_grid, torch.ones_like(x_grid)], dim=-1)


def picked(table, columns, rows: int):
    """The copy is the index of `gather`, whose output has its shape: one more buffer of the
    output's size (low)."""
    chosen = columns[None].expand(rows, -1)
    return table.gather(1, chosen)


def scaled(scale, rows: int):
    """Only a number meets the copy: drop it and the op reads the view (a full finding)."""
    dense_scale = scale[None].expand(rows, -1)
    return (scale[None] * 2.0).expand_as(dense_scale)
