import torch
import triton
import triton.language as tl


@triton.jit
def _accumulate_kernel(X, Acc, stride_a0, stride_a1):
    pass


def accumulate(x, acc):
    """Accumulate `x` into `acc`.

    Args:
        acc: a (rows, cols) accumulator, possibly broadcast from one row.
    """
    acc.zero_()
    _accumulate_kernel[(x.shape[0],)](x, acc, *acc.stride())
    acc += x
    return acc
