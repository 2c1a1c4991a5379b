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


class Masked:
    def __init__(self, mask, other):
        self.mask, self.other = mask, other

    def counts(self, rows: int):
        mask_small, mask_reps = _narrow_broadcast(self.mask.expand(rows, -1))
        a = (mask_small != 0).sum() * math.prod(mask_reps)
        self.mask = self.other
        mask_small_1, mask_reps_1 = _narrow_broadcast(self.mask.expand(rows, -1))
        b = (mask_small_1 != 0).sum() * math.prod(mask_reps_1)
        return a, b


def counts(mask, other, rows: int):
    return Masked(mask, other).counts(rows)
