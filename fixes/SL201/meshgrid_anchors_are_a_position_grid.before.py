# With `low-severity = true`: `torch.meshgrid` of index vectors makes a coordinate grid (its
# outputs are stride-0 views); the anchors built from it repeated per image are a position
# grid: low severity.
import torch


def anchors(height: int, width: int, batch_size: int, scale: float):
    """(batch, height, width, 2) anchor centres, the same for every image."""
    grid_y, grid_x = torch.meshgrid(
        torch.linspace(0, height - 1, height), torch.linspace(0, width - 1, width), indexing="ij"
    )
    grid = torch.cat([grid_x.unsqueeze(-1), grid_y.unsqueeze(-1)], -1)
    return (grid.unsqueeze(0).expand(batch_size, -1, -1, -1) + 0.5) / scale


def block_causal_mask(frame_ids):
    """A meshgrid of other vectors is not followed: `x <= y` compares values that vary along
    different dims, so the comparison is the whole mask, nothing repeated (no finding)."""
    x, y = torch.meshgrid(frame_ids, frame_ids, indexing="xy")
    return torch.where(x <= y, 0.0, float("-inf"))
