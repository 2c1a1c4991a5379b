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


def row_stats(row_mask, n_cols):
    mask = row_mask[:, None].expand(-1, n_cols)
    count = lambda: (((mask_narrowed := _narrow_broadcast(mask))[0] != 0).sum() * math.prod(mask_narrowed[-1]))
    per_col = lambda: (mask != 0).sum(dim=0)
    return count(), per_col()
