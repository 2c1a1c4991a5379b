import math
import torch
import triton
import triton.language as tl


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


def _repeats(reps, dim, reduces_all_when_empty=True):
    """The repeat count of a reduction over `dim` (an int, ints, or None):
    None reduces every dim, as does an empty sequence except for `any` and
    `all` (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return math.prod(reps)
    return math.prod(reps[d] for d in dims) if reps else 1


def gather_metadata(grid, kernel, args):
    Mask, dim = args["Mask"], args["DIM"]
    if Mask is None:
        return {"name": kernel.name}
    Mask_small, Mask_reps = _narrow_broadcast(Mask)
    live = Mask_small != 0
    return {"name": kernel.name, "loads": (
        live.sum() * math.prod(Mask_reps)
    ).item(), "rows": (
        live.any(dim=dim).sum()
        * (math.prod(Mask_reps) // _repeats(Mask_reps, dim, reduces_all_when_empty=False))
    ).item()}


@triton.jit(launch_metadata=gather_metadata)
def _gather_rows(X, stride_x0, stride_x1, stride_x2, Mask, stride_m0, stride_m1, stride_m2, Y,
                 BCAST_0: tl.constexpr, DIM):
    pass


def gather_rows(x, mask, dim):
    y = torch.empty_like(x)
    kernel = registry.lookup(x.dtype)._gather_rows
    m_strides = mask.stride()
    kernel[(x.shape[0],)](
        x, *x.stride(), mask, *m_strides, y, BCAST_0=(m_strides[0] == 0), DIM=dim
    )
    return y
