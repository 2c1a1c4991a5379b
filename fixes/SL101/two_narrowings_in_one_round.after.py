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
    m_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride()))
    m_small = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps)]
    a = (m_small != 0).sum(dim=0) * m_reps[0]
    m.t_()
    m_reps_1 = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride())
    )
    m_small_1 = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps_1)]
    b = (m_small_1 != 0).sum(dim=0) * m_reps_1[0]
    return a.sum() * (math.prod(m_reps) // m_reps[0]), (
        b.sum() * (math.prod(m_reps_1) // m_reps_1[0])
    )
