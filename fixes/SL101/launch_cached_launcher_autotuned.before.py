import torch
import triton
import triton.language as tl


def norm_metadata(grid, kernel, args):
    Weight = args.get("Weight")
    if Weight is None:
        return {"name": kernel.name}
    used = Weight.abs() > 0
    return {"name": kernel.name, "weights": used.sum().item()}


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
