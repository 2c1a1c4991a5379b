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


def masked_metadata(grid, kernel, args):
    """Launch metadata of a masked kernel.

    Args:
        Mask: a broadcastable mask; absent when the kernel runs unmasked.
    """
    if "Mask" in args and (
        ((Mask_narrowed := _narrow_broadcast(args["Mask"]))[0] != 0).sum()
        * math.prod(Mask_narrowed[-1])
    ) > 0:
        Mask_small, Mask_reps = _narrow_broadcast(args["Mask"])
        return {"name": "masked", "hits": int(
            (Mask_small != 0).sum() * math.prod(Mask_reps)
        )}
    return {"name": "dense"}
