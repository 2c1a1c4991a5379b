"""Launch metadata of the reference reduce kernel: what Proton records for each launch.

The counts use narrow-and-rescale (semantics §0, §4.1): a mask broadcast over a large dim costs
memory and time proportional to its storage, not its logical size. The shipped file,
stridelint/reference/metadata.py, is exactly `stridelint fix` applied to the naive form kept in
fixes/SL101/reference_hook.before.py; a test keeps them so.
"""

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


def _repeats(reps, dim, reduces_all_when_empty=True):
    """The repeat count of a reduction over `dim` (an int, ints, or None):
    None reduces every dim, as does an empty sequence except for `any` and
    `all` (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return math.prod(reps)
    return math.prod(reps[d] for d in dims) if reps else 1


def _count_true(t, dim=None, rows=False):
    """`t.sum()` of a bool tensor (0-d int64, on t's device); with rows=True,
    how many rows along `dim` hold a True: `t.sum(dim).count_nonzero()`.
    Off the CPU, sum and count_nonzero first copy t to int64 (8 bytes an
    element), so count sixteenths of it in int32 there."""
    if rows and (dim is None or isinstance(dim, (tuple, list)) and not dim):
        t = t.any()
    elif rows and not (type(dim) is int and t.dim() and t.shape[dim] == 1):
        t = t.any(dim=dim)
    if t.device.type == "cpu" or t.dim() == 0:
        return torch.count_nonzero(t)
    d = max(range(t.dim()), key=t.size)
    total = t.new_zeros((), dtype=torch.int64)
    for part in t.split(max(1, t.size(d) // 16), d):
        total += part.sum(dtype=torch.int32 if part.numel() < 2**31 else None)
    return total


def reduce_launch_metadata(grid, kernel, args):
    """Name, additions and bytes of one reduce launch, for Proton's roofline.

    ``Mask`` may be a broadcast (stride-0) view: the wrapper expands lower-rank masks.
    ``flops32`` counts the fp32 additions a masked sum performs: per output element, one less
    than the number of kept (``mask != 0``) elements along ``DIM``. ``bytes`` counts the x and
    scale elements loaded where the mask keeps them plus the output written; mask reads are not
    counted. With a mask the counts are 0-d tensors on the mask's device, so no host sync
    (semantics §6).
    """
    x, y = args["X"], args["Y"]
    dim = args["DIM"] % x.ndim
    if args["HAS_MASK"]:
        mask = args["Mask"]
        mask_small, mask_reps = _narrow_broadcast(mask)
        kept = mask_small != 0
        loads = _count_true(kept) * math.prod(mask_reps)
        adds = (
            _count_true(kept) * math.prod(mask_reps)
            - _count_true(kept, dim, rows=True)
            * (math.prod(mask_reps) // _repeats(mask_reps, dim))
        )
    else:
        loads = x.numel()
        adds = y.numel() * max(x.shape[dim] - 1, 0)
    loaded_bytes = x.element_size() + (args["Scale"].element_size() if args["HAS_SCALE"] else 0)
    shape = ",".join(str(size) for size in x.shape)
    return {
        "name": f"reduce[{shape}] dim={dim}",
        "flops32": adds,
        "bytes": loads * loaded_bytes + y.numel() * y.element_size(),
    }
