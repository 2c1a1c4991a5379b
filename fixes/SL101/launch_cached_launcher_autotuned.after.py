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


def norm_metadata(grid, kernel, args):
    Weight = args.get("Weight")
    if Weight is None:
        return {"name": kernel.name}
    Weight_small, Weight_reps = _narrow_broadcast(Weight)
    used = Weight_small.abs() > 0
    return {"name": kernel.name, "weights": (
        used.sum() * math.prod(Weight_reps)
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
