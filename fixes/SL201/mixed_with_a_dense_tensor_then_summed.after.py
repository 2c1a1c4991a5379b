import math
import torch


def _narrow_broadcast(*args):
    """The tensor args as views cut to one element on each dim they all
    repeat (stride 0, size > 1), and each dim's repeat count."""
    shaped = [isinstance(a, torch.Tensor) and a.dim() > 0 for a in args]
    views = torch.broadcast_tensors(*(a for a, s in zip(args, shaped) if s))
    dims = zip(views[0].shape, *(v.stride() for v in views)) if views else ()
    reps = tuple(n if n > 1 and not any(st) else 1 for n, *st in dims)
    index = tuple(slice(1) if r > 1 else slice(None) for r in reps)
    views = iter(views)
    out = [next(views)[index] if s else a for a, s in zip(args, shaped)]
    return (*out, reps)


def routed_blocks(gate_scores, self_blocks, heads: int):
    """The gate mask is dense (heads x blocks x blocks) and the self-block mask is one row
    repeated per head. The `&` mixes the broadcast with a full-size tensor, so its sum cannot be
    narrowed (no SL101); the waste is `~` over every copy of the self-block mask, which can run
    before the expand (SL201)."""
    self_mask = self_blocks[None].expand(heads, -1, -1)
    gate_mask = gate_scores > 0
    gate_mask = gate_mask & (~self_blocks[None]).expand_as(self_mask)
    return gate_mask.sum()


def self_block_count(self_blocks, heads: int):
    """Only the broadcast reaches the sum: narrow and rescale it (SL101)."""
    self_mask = self_blocks[None].expand(heads, -1, -1)
    self_mask_small, self_mask_reps = _narrow_broadcast(self_mask)
    return (~self_mask_small).sum() * math.prod(self_mask_reps)
