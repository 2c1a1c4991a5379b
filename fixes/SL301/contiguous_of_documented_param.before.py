import torch
import triton
import triton.language as tl


@triton.jit
def _bias_kernel(X, B, Out, n_cols, stride_b0, stride_b1, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < n_cols
    x = tl.load(X + row * n_cols + cols, mask=ok)
    b = tl.load(B + row * stride_b0 + cols * stride_b1, mask=ok)
    tl.store(Out + row * n_cols + cols, x + b, mask=ok)


def add_bias(x, bias):
    """Add `bias` to `x`.

    Args:
        x: a contiguous (rows, cols) tensor.
        bias: a (rows, cols) tensor, or one broadcast to that shape.
    """
    bias = bias.contiguous()
    out = torch.empty_like(x)
    _bias_kernel[(x.shape[0],)](
        x, bias, out, x.shape[1], *bias.stride(), BLOCK=triton.next_power_of_2(x.shape[1])
    )
    return out
