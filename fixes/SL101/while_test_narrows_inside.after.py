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


def shrink_until_sparse(mask, rows: int):
    m = mask.expand(rows, -1)
    steps = 0
    while (
        ((m_narrowed := _narrow_broadcast(m))[0] != 0).sum() * math.prod(m_narrowed[-1])
    ) > 4:
        m = m[1:]
        steps += 1
    return steps
