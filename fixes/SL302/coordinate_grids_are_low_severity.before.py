# With `low-severity = true`: flattened coordinate grids are position ids, one small integer
# per token: scaled by a merge size the module holds, or made from a list of frame indices
# (`torch.tensor(frame_index)` is named by its data). A learned table copied per frame is not.
import torch


class PatchPositions:
    def __init__(self, merge_size: int):
        self.merge_size = merge_size

    def ids(self, height: int, width: int, frame_index: list[int]):
        merge = self.merge_size
        rows = torch.arange(height // merge)[:, None, None] * merge + torch.arange(merge)[:, None]
        rows = rows.expand(-1, width // merge, merge).reshape(-1)
        t_grid = torch.tensor(frame_index).view(-1, 1).expand(-1, height * width)
        frames = torch.tensor(frame_index).view(-1, 1).expand(-1, height * width).long().flatten()
        return rows, t_grid.reshape(-1), frames

    def pairs(self, vertices: int):
        """Every (i, j) vertex pair of a complete graph, from two broadcast index vectors."""
        i, j = torch.broadcast_tensors(torch.arange(vertices), torch.arange(vertices)[:, None])
        return i.contiguous().view(-1), j.contiguous().view(-1)

    def tables(self, table, frames: int):
        n, d = table.shape
        return table.unsqueeze(0).expand(frames, n, d).reshape(frames * n, d)
