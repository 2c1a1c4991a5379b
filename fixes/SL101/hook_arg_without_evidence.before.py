import torch
import triton


def _scaled_matmul_metadata(grid, kernel, args):
    a, b, scale = args["A"], args["B"], args["Scale"]
    m, k = a.shape
    n = b.shape[1]
    rescaled = (scale != 1.0).sum()
    return {"name": f"scaled_matmul {m}x{n}x{k}", "flops16": 2 * m * n * k + rescaled * m}


@triton.jit(launch_metadata=_scaled_matmul_metadata)
def _scaled_matmul_kernel(A, B, C, Scale, M, N, K):
    pass


def scaled_matmul(a, b, scale):
    c = torch.empty(a.shape[0], b.shape[1], dtype=a.dtype, device=a.device)
    _scaled_matmul_kernel[(1,)](a, b, c, scale, a.shape[0], b.shape[1], a.shape[1])
    return c
