# With `low-severity = true`: a copy read by an einsum whose output has every one of the
# copy's subscripts costs one more buffer of at most the output's size (low severity).
import torch


def state_update(dt, group_b, x, heads):
    """`bdn` is the output's own shape: the einsum writes as many elements anyway."""
    per_channel = group_b[:, :, None].expand(-1, -1, heads, -1).reshape(x.shape[0], -1, group_b.shape[-1])
    return torch.einsum("bd,bdn,bd->bdn", dt, per_channel, x)


def readout(state, group_c, heads):
    """`bdn` is summed over `n`: the output is smaller than the copy (a full finding)."""
    per_channel = group_c[:, :, None].expand(-1, -1, heads, -1).reshape(state.shape[0], -1, group_c.shape[-1])
    return torch.einsum("bdn,bdn->bd", state, per_channel)


def state_update_or_kernel(dt, group_b, x, heads, kernel):
    """The `else` branch never sees the copy: only the einsum reads it (low)."""
    if kernel is None:
        group_b = group_b[:, :, None].expand(-1, -1, heads, -1).reshape(x.shape[0], -1, group_b.shape[-1])
        update = torch.einsum("bd,bdn,bd->bdn", dt, group_b, x)
    else:
        update = kernel(dt, group_b, x)
    return update
