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


def agreement(pred, target, weight):
    # `weight` may grow dims that `pred` and `target` both have size 1 on: along them,
    # `p == t` repeats its values, and the mean can be taken on one copy.
    p, t, w = torch.broadcast_tensors(pred, target, weight)
    p_small, t_small, reps = _narrow_broadcast(p, t)
    return (p_small == t_small).float().mean(), w
