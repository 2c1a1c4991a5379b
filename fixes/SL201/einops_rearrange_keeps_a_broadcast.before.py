import torch
from einops import rearrange


def column_scale(scale, rows):
    """`rearrange` without merged output groups is a permute: the stride-0 dim survives, and
    `exp` writes the full (cols, rows) size."""
    grid = scale[:, None].expand(-1, rows)
    return rearrange(grid, "c r -> r c").exp()
