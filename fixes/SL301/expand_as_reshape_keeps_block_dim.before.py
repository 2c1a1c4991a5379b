import torch


def block_scales_per_row(values, scales, rows, blocks, block):
    """Merging the two leading (strided) dims keeps the stride-0 block dim: a view."""
    blocked = values.view(rows, blocks, block)
    per_value = scales.unsqueeze(-1).expand_as(blocked).reshape(rows * blocks, block)
    return values.view(rows * blocks, block) * per_value
