def position_grid(positions, batch):
    grid = positions[None, :].expand(batch, -1).clone()
    return grid
