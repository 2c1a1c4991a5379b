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


def _repeats(reps, dim, reduces_all_when_empty=True):
    """How many copies of each narrowed element a reduction over `dim` counts (`dim` an int,
    a sequence of ints, or None). None reduces every dim, and so does an empty sequence,
    except for `any` and `all`, which then reduce none (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return math.prod(reps)
    return math.prod(reps[d] for d in dims) if reps else 1


def transposed_counts(mask, rows: int):
    m = mask.expand(rows, -1)
    return (m := m.t()).shape, (((m_narrowed := _narrow_broadcast(m))[0] != 0).sum(dim=0) * _repeats(m_narrowed[-1], 0)).sum() * (math.prod(m_narrowed[-1]) // _repeats(m_narrowed[-1], 0))
