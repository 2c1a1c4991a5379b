# With `low-severity = true` the low-severity copies are reported too.
import torch


def plan_with_mask(planner, mask, batch: int, q_len: int, kv_len: int):
    """`.contiguous().view(-1)` spells the flat dense buffer a library's planner takes; the
    view only goes on to code the linter cannot see, which usually needs that layout: low
    severity, like an explicit copy passed on."""
    if mask.dim() == 2:
        mask = mask.unsqueeze(0).expand(batch, q_len, kv_len)
    packed = mask.contiguous().view(-1)
    planner.plan(batch, has_mask=packed is not None, custom_mask=packed)


def shared_keys_per_head(q, k, heads: int):
    """The view merges the stride-0 head dim for `torch.bmm`, a consumer the code controls: a
    grouped view lets it broadcast instead, so the copy is a full finding."""
    b, _, s, d = k.shape
    keys = k.expand(b, heads, s, d).contiguous().view(b * heads, s, d)
    return torch.bmm(q, keys.transpose(1, 2))


def heads_for_attention(attend, q, k, heads: int):
    """A view to other dims (groups merged into heads) is a layout the code chose, not a flat
    buffer: a full finding even though the view is only passed on."""
    b, s, groups, _, d = k.shape
    keys = k.expand(b, s, groups, heads // groups, d).contiguous().view(b, s, heads, d)
    return attend(q, keys)
