import torch
import triton
import triton.language as tl


@triton.jit
def _rope_kernel(X, POS, n):
    pass


def rope_positions(x, frames: int, rows: int, cols: int):
    """Position ids of a frames × rows × cols patch grid: the flattened grids are the ids the
    kernel reads, one per token; small beside `x`, so they are not reported."""
    t_ids = torch.arange(frames, device=x.device).view(-1, 1, 1).expand(-1, rows, cols).flatten()
    r_ids = (torch.arange(rows, device=x.device) * cols).reshape(1, -1, 1).expand(frames, -1, cols)
    c_ids = torch.arange(cols, device=x.device).long().view(1, 1, -1).expand(frames, rows, -1)
    pos = torch.stack([t_ids, r_ids.reshape(-1), c_ids.contiguous().view(-1)])
    _rope_kernel[(frames,)](x, pos, x.numel())
    return pos


def rope_tables(x, table, frames: int):
    """The same grid shape over a learned table is a real copy per frame: reported."""
    per_frame = table.unsqueeze(0).expand(frames, -1, -1).contiguous()
    _rope_kernel[(frames,)](x, per_frame, x.numel())
    return per_frame
