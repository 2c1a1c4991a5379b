import torch


def selected_positions(positions, batch, keep):
    """`grid[keep]` gathers only the selected elements into a new tensor: nothing full-size."""
    grid = positions[None, :].expand(batch, -1)
    chosen = torch.rand(batch, positions.shape[0]) > keep
    return grid[chosen]
