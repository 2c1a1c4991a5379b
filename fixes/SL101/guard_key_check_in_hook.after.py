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


def masked_metadata(grid, kernel, args):
    """Launch metadata of a masked kernel.

    Args:
        Mask: a broadcastable mask; absent when the kernel runs unmasked.
    """
    if "Mask" in args and ((Mask_narrowed := _narrow_broadcast(args["Mask"]))[0] != 0).sum() * math.prod(Mask_narrowed[-1]) > 0:
        Mask_small, Mask_reps = _narrow_broadcast(args["Mask"])
        return {"name": "masked", "hits": int((Mask_small != 0).sum() * math.prod(Mask_reps))}
    return {"name": "dense"}
