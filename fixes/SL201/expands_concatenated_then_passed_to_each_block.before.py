import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.table = nn.Parameter(torch.randn(1, 1, 6, dim))

    def forward(self, x, modulation):
        """`modulation.float()` runs at the concatenation's full size, tokens x 6 x dim, in
        every block, where each part holds one row per sample."""
        shift, scale, gate, *rest = (self.table + modulation.float()).chunk(6, dim=2)
        return x * (1 + scale.squeeze(2)) + shift.squeeze(2)


class GatedBlock(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.table = nn.Parameter(torch.randn(1, 1, 6, dim))

    def forward(self, x, modulation):
        """The caller's modulation has 4 dims: the 3-D branch never runs with it."""
        if modulation.ndim == 4:
            shift, scale, gate, *rest = (self.table + modulation.float()).chunk(6, dim=2)
            shift, scale, gate = shift.squeeze(2), scale.squeeze(2), gate.squeeze(2)
        else:
            shift, scale, gate, *rest = (self.table[0] + modulation.float()).chunk(6, dim=1)
        return x + gate * (x * (1 + scale) + shift)


class FramePacked(nn.Module):
    """History frames take the modulation of timestep 0, current frames their own: two
    per-sample rows expanded over their tokens and concatenated."""

    def __init__(self, dim: int, depth: int):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, x, proj, proj0, n_history: int):
        b, n = x.shape[0], x.shape[1] - n_history
        current = proj.view(b, 1, 6, -1).expand(b, n, 6, -1)
        history = proj0.view(1, 1, 6, -1).expand(b, n_history, 6, -1)
        modulation = torch.cat([history, current], dim=1)
        for block in self.blocks:
            x = block(x, modulation)
        return x


class HistoryOnRequest(nn.Module):
    """The history part is made and concatenated only when asked for (`if` twice); either
    way the blocks get values that repeat per token."""

    def __init__(self, dim: int, depth: int):
        super().__init__()
        self.blocks = nn.ModuleList([GatedBlock(dim) for _ in range(depth)])

    def forward(self, x, proj, proj0, n_history: int):
        b = x.shape[0]
        if n_history > 0:
            history = proj0.view(1, 1, 6, -1).expand(b, n_history, 6, -1)
        modulation = proj.view(b, 1, 6, -1).expand(b, x.shape[1] - n_history, 6, -1)
        if n_history > 0:
            modulation = torch.cat([history, modulation], dim=1)
        for block in self.blocks:
            x = block(x, modulation)
        return x
