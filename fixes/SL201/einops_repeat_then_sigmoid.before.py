import torch
from einops import repeat


def head_gate(logits, batch):
    """A (batch, heads) gate from per-head logits (heads,): `repeat` expands the new `b` axis
    (a stride-0 view), and `sigmoid` then writes all batch × heads values."""
    wide = repeat(logits, "h -> b h", b=batch)
    return wide.sigmoid()
