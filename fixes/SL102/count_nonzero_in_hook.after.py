import math
import torch
import triton


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
