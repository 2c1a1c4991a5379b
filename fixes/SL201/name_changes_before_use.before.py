import torch


def shifted_penalty(mask, rows):
    """The fix would repeat `mask[None, :]` after `mask` was rebound: no fix."""
    expanded = mask[None, :].expand(rows, -1)
    mask = mask.roll(1)
    penalty = 1.0 - expanded
    return penalty, mask
