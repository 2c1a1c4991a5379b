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


def _scaled_matmul_metadata(grid, kernel, args):
    a, b, scale = args["A"], args["B"], args["Scale"]
    m, k = a.shape
    n = b.shape[1]
    scale_small, scale_reps = _narrow_broadcast(scale)
    rescaled = (scale_small != 1.0).sum() * math.prod(scale_reps)
    return {"name": f"scaled_matmul {m}x{n}x{k}", "flops16": 2 * m * n * k + rescaled * m}


@triton.jit(launch_metadata=_scaled_matmul_metadata)
def _scaled_matmul_kernel(A, B, C, Scale, M, N, K):
    pass


def scaled_matmul(a, b, scale):
    """`a @ b` with every output element multiplied by `scale`.

    Args:
        scale: per-element scales, broadcastable to the (M, N) output.
    """
    c = torch.empty(a.shape[0], b.shape[1], dtype=a.dtype, device=a.device)
    _scaled_matmul_kernel[(1,)](a, b, c, scale, a.shape[0], b.shape[1], a.shape[1])
    return c
