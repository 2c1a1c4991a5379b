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


def norm_metadata(grid, kernel, args):
    Weight = args.get("Weight")
    if Weight is None:
        return {"name": kernel.name}
    Weight_small, Weight_reps = _narrow_broadcast(Weight)
    used = Weight_small.abs() > 0
    return {"name": kernel.name, "weights": (
        _count_true(used) * math.prod(Weight_reps)
    ).item()}


@triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["N"])
@triton.jit(launch_metadata=norm_metadata)
def _weighted_norm(X, Weight, Y, N, BLOCK: tl.constexpr):
    pass


def weighted_norm(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    weight = weight.expand_as(x)
    launcher = _weighted_norm[(x.shape[0],)]
    launcher(x, weight, y, x.shape[-1])
    return y
