"""Two fixes of the function below narrow the same tensor at one insertion point, so they
apply one per round, and the second's fresh names must differ from the first's."""

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


def before_and_after_transpose(mask, rows: int):
    m = mask.expand(rows, -1)
    a = (m != 0).sum(dim=0)
    m.t_()
    b = (m != 0).sum(dim=0)
    return a.sum(), b.sum()
