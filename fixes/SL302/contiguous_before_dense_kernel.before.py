import torch
import triton


@triton.jit
def _apply_scales(X, S, Y, N):
    pass


def apply_group_scales(x, group_scale):
    """Scale each group of columns by its own factor."""
    scales = group_scale[:, :, None].expand(-1, -1, 128).flatten(1)
    dense = group_scale[None, :].expand(x.shape[0], -1).contiguous()
    y = torch.empty_like(x)
    _apply_scales[(x.shape[0],)](x, dense, y, x.shape[1])
    return y, scales
