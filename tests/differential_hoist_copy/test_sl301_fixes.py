"""SL301's fixes (drop a copy that every use could read as a view; create a `zeros_like`
before the expand) compute the same values as the code they replace.

The kernels of these cases read their inputs through the strides they are given: the
Python stand-ins here do the same (`strided_view`), and one test runs the real Triton
kernels under the interpreter on a few inputs.
"""

from __future__ import annotations

import contextlib

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from tests.differential_hoist_copy.support import (
    EXAMPLES,
    FLOATS,
    PythonKernel,
    assert_same,
    dense,
    fixed_variants,
    laid_out,
    load,
    strided_view,
)

SIZE = st.integers(1, 6)


def _rowwise(op):
    """A stand-in for `k[(rows,)](X, M, Out, n_cols, stride_m0, stride_m1, BLOCK=...)`."""

    def kernel(grid, X, M, Out, n_cols, stride_m0, stride_m1, BLOCK):
        rows = grid[0]
        m = strided_view(M, (rows, n_cols), (stride_m0, stride_m1))
        Out.view(rows, n_cols).copy_(op(X.view(rows, n_cols), m))

    return kernel


@contextlib.contextmanager
def _kernel(module, name, fn):
    real = getattr(module, name)
    setattr(module, name, PythonKernel(fn))
    try:
        yield
    finally:
        setattr(module, name, real)


def _compare(case: str, kernel: str | None, fn, run) -> None:
    before = load("SL301", case, "before")
    with _kernel(before, kernel, fn) if kernel else contextlib.nullcontext():
        expected = run(before)
    for _, module in fixed_variants("SL301", case):
        with _kernel(module, kernel, fn) if kernel else contextlib.nullcontext():
            assert_same(expected, run(module), strides=False)


@EXAMPLES
@given(data=st.data(), rows=SIZE, cols=SIZE, seed=st.integers(0, 99), dtype=FLOATS)
def test_contiguous_mask_with_strides(data, rows, cols, seed, dtype):
    x = dense((rows, cols), dtype, seed)
    mask = data.draw(laid_out((cols,), dtype))
    _compare(
        "contiguous_mask_with_strides", "_scale_kernel", _rowwise(torch.mul),
        lambda m: m.masked_scale(x, mask),
    )  # fmt: skip


@EXAMPLES
@given(data=st.data(), rows=SIZE, cols=SIZE, seed=st.integers(0, 99), dtype=FLOATS)
def test_contiguous_of_documented_param(data, rows, cols, seed, dtype):
    x = dense((rows, cols), dtype, seed)
    bias = data.draw(laid_out((rows, cols), dtype))
    _compare(
        "contiguous_of_documented_param", "_bias_kernel", _rowwise(torch.add),
        lambda m: m.add_bias(x, bias),
    )  # fmt: skip


@EXAMPLES
@given(data=st.data(), rows=SIZE, cols=SIZE, dtype=FLOATS)
def test_zeros_like_of_expanded_read_only(data, rows, cols, dtype):
    logits = data.draw(laid_out((rows, cols), dtype))
    keep = data.draw(laid_out((cols,), torch.bool))
    _compare(
        "zeros_like_of_expanded_read_only", None, None, lambda m: m.masked_logits(logits, keep)
    )


@pytest.mark.parametrize("seed", range(3))
def test_kernels_under_the_interpreter(seed):
    """The real kernels, on small inputs: dropping the copy gives the same output."""
    x = dense((3, 5), torch.float32, seed)
    mask = dense((5,), torch.float32, seed + 1)
    bias = dense((1, 5), torch.float32, seed + 2).expand(3, 5)
    for case, run in (
        ("contiguous_mask_with_strides", lambda m: m.masked_scale(x, mask)),
        ("contiguous_of_documented_param", lambda m: m.add_bias(x, bias)),
    ):
        expected = run(load("SL301", case, "before"))
        for _, module in fixed_variants("SL301", case):
            assert_same(expected, run(module), strides=True)
