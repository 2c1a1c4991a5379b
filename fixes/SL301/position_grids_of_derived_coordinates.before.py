import torch


def thumbnail_positions(canvas_h: int, rows: int, cols: int, device):
    """Rounded linspace coordinates repeated per column: the per-token ids the code wants."""
    h = torch.linspace(0, canvas_h - 1, rows, device=device).round().long()
    return h.view(-1, 1).expand(-1, cols).reshape(-1)


def temporal_positions(frames: int, cfg, fps: float, tokens_per_frame: int):
    """Frame indices scaled by settings the analysis cannot read: still coordinates."""
    t = torch.arange(frames, dtype=torch.float32) / fps * cfg.base_fps + cfg.offset
    return t.view(-1, 1).expand(-1, tokens_per_frame).flatten()


def grid_width_per_token(width: int, frames: int, height: int):
    """A number written out as a tensor, repeated per token: per-token metadata."""
    return torch.tensor([width]).view(1, 1, 1).expand(frames, height, width).flatten()


def patch_ids(side: int, max_side: int, batch: int):
    """The outer sum of two position vectors is a grid of ids too."""
    ids = (torch.arange(side)[:, None] * max_side + torch.arange(side)).flatten()
    return ids.unsqueeze(0).expand(batch, -1).flatten()


def table_rows(table, rows: int):
    """A learned table is no position grid: its flattened copy is reported."""
    return table[None].expand(rows, -1, -1).flatten()


def zeros_are_not_positions(n: int, m: int, k: int):
    """`torch.zeros([n, m])` names a shape, not the numbers of an index vector."""
    z = torch.zeros([n, m])
    return z[None].expand(k, -1, -1).flatten()
