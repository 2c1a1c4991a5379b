"""A script: build a mask at top level, then count it."""
import math
import torch


def _narrow_broadcast(*tensors):
    """Narrow to size 1 every dim along which all tensor operands repeat one value (stride 0,
    size > 1), without copying; return the narrowed operands and each dim's repeat count."""
    shaped = [t for t in tensors if isinstance(t, torch.Tensor) and t.dim() > 0]
    expanded = torch.broadcast_tensors(*shaped)
    shape = expanded[0].shape if expanded else ()
    reps = tuple(
        n if n > 1 and all(t.stride(d) == 0 for t in expanded) else 1
        for d, n in enumerate(shape)
    )
    views = iter(expanded)
    narrowed = []
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.dim() > 0:
            t = next(views)
            for d, r in enumerate(reps):
                if r > 1:
                    t = t.narrow(d, 0, 1)
        narrowed.append(t)
    return (*narrowed, reps)

batch, heads, keys = 4, 8, 16
keep = torch.rand(batch, 1, keys) > 0.5
mask = keep.expand(batch, heads, keys)
mask_small, mask_reps = _narrow_broadcast(mask)
kept = (mask_small != 0).sum() * math.prod(mask_reps)
per_head = (mask != 0).sum(dim=1)
print(kept, per_head)
