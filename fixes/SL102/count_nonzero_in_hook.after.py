import math
import torch
import triton


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


def _gather_metadata(grid, kernel, args):
    index, mask = args["Index"], args["Mask"]
    mask_small, mask_reps = _narrow_broadcast(mask)
    loads = mask_small.count_nonzero() * math.prod(mask_reps)
    return {"name": "gather", "bytes": loads * index.element_size()}


@triton.jit(launch_metadata=_gather_metadata)
def _gather_kernel(Out, Src, Index, Mask, stride_m0, stride_m1):
    pass


def masked_gather(src, index, mask):
    out = torch.zeros(index.shape, dtype=src.dtype, device=src.device)
    mask = mask.expand(index.shape)
    _gather_kernel[(index.shape[0],)](out, src, index, mask, *mask.stride())
    return out
