import math
import torch
import triton
import triton.language as tl


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


def norm_metadata(grid, kernel, args):
    Weight = args.get("Weight")
    if Weight is None:
        return {"name": kernel.name}
    Weight_small, Weight_reps = _narrow_broadcast(Weight)
    used = Weight_small.abs() > 0
    return {"name": kernel.name, "weights": (used.sum() * math.prod(Weight_reps)).item()}


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
