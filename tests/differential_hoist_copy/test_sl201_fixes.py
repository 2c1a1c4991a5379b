"""SL201's hoist-before-expand fixes compute the same values as the code they replace.

Each test runs the golden `before` module and every fixed output of one case on inputs with
random shapes, dtypes and layouts (broadcast dims, strided storage). Safe fixes must also
keep the result's strides; unsafe ones may not (the result can become a stride-0 view).
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
    MASK_DTYPES,
    PythonKernel,
    assert_same,
    dense,
    fixed_variants,
    laid_out,
    load,
    strided_view,
)

SIZE = st.integers(1, 5)


def _compare(case: str, run, **tolerance) -> None:
    expected = run(load("SL201", case, "before"))
    for suffix, module in fixed_variants("SL201", case):
        assert_same(expected, run(module), strides=suffix == "after", **tolerance)


def _one_ulp_of_the_op(dtype: torch.dtype, summed_magnitude: float | None = None) -> dict:
    """How far a result may move when a transcendental op, hoisted before its expand, runs on
    fewer elements: CPU kernels compute a long row with vector code and a short one with scalar
    libm, and the two may round one input differently by an ulp (why the rule marks these fixes
    unsafe). One ulp of the op's value, then a rounding of the product it feeds each way: 3 eps
    relative (absolute below the smallest normal). Where products of it are summed and may
    cancel (a rotation), the bound is absolute: 4 eps times `summed_magnitude`, the largest sum
    of the factors' magnitudes (the op's values are at most 1 there)."""
    finfo = torch.finfo(dtype)
    if summed_magnitude is not None:
        return {"rtol": 0.0, "atol": 4 * finfo.eps * summed_magnitude + finfo.tiny}
    return {"rtol": 3 * finfo.eps, "atol": finfo.tiny}


@EXAMPLES
@given(data=st.data(), bsz=SIZE, src_len=SIZE, tgt_len=st.one_of(st.none(), SIZE),
       mask_dtype=MASK_DTYPES, dtype=FLOATS)  # fmt: skip
def test_padding_mask_chain(data, bsz, src_len, tgt_len, mask_dtype, dtype):
    mask = data.draw(laid_out((bsz, src_len), mask_dtype))
    _compare("padding_mask_chain", lambda m: m._expand_mask(mask, dtype, tgt_len))


@EXAMPLES
@given(data=st.data(), batch=SIZE, heads=SIZE, queries=SIZE, keys=SIZE,
       pad_dtype=MASK_DTYPES, dtype=FLOATS)  # fmt: skip
def test_padding_bias_scaled(data, batch, heads, queries, keys, pad_dtype, dtype):
    scores = data.draw(laid_out((batch, heads, queries, keys), dtype))
    pad = data.draw(laid_out((batch, keys), pad_dtype))
    _compare("padding_bias_scaled", lambda m: m.add_padding_bias(scores, pad, heads))


@EXAMPLES
@given(data=st.data(), queries=SIZE, keys=SIZE, dtype=FLOATS)
def test_where_with_scalars(data, queries, keys, dtype):
    scores = data.draw(laid_out((queries, keys), dtype))
    keep = data.draw(laid_out((keys,), torch.bool))
    _compare("where_with_scalars", lambda m: m.add_key_bias(scores, keep))


@EXAMPLES
@given(data=st.data(), rows=SIZE, cols=SIZE, dtype=FLOATS)
def test_where_two_expanded_operands(data, rows, cols, dtype):
    keep = data.draw(laid_out((cols,), torch.bool))
    values = data.draw(laid_out((cols,), dtype))
    _compare("where_two_expanded_operands", lambda m: m.doubled_kept_values(keep, values, rows))


@EXAMPLES
@given(data=st.data(), tokens=SIZE, dim=SIZE, dtype=FLOATS)
def test_functional_softplus_of_expanded(data, tokens, dim, dtype):
    gate = data.draw(laid_out((dim,), dtype))
    hidden = data.draw(laid_out((tokens, dim), dtype))
    _compare(
        "functional_softplus_of_expanded",
        lambda m: m.gate_scale(gate, hidden),
        **_one_ulp_of_the_op(dtype),
    )


@EXAMPLES
@given(data=st.data(), batch=SIZE, queries=SIZE, keys=SIZE)
def test_inverted_mask_returned(data, batch, queries, keys):
    pad = data.draw(laid_out((batch, keys), torch.bool))
    _compare("inverted_mask_returned", lambda m: m.attend_mask(pad, queries))


# ---- cases that launch a kernel -----------------------------------------------------------
# The kernels read their inputs through the strides they are given; the Python stand-ins
# below do the same (`strided_view`), so a fix that hands a kernel a stride-0 view is tested
# the way the kernel would see it. test_kernels_under_the_interpreter runs the real Triton
# kernels on a few examples.


def _rotate_angle(grid, X, Angle, Out, heads, seq, half, sa0, sa1, sa2, sa3, BLOCK):
    rows = grid[0]
    angle = strided_view(Angle, (rows // (heads * seq), heads, seq, half), (sa0, sa1, sa2, sa3))
    angle = angle.reshape(rows, half)
    _rotate_rows(X, angle.cos(), angle.sin(), Out, rows, half)


def _rotate_cos_sin(grid, X, Cos, Sin, Out, half, sc0, sc1, ss0, ss1, BLOCK):
    rows = grid[0]
    cos = strided_view(Cos, (rows, half), (sc0, sc1))
    sin = strided_view(Sin, (rows, half), (ss0, ss1))
    _rotate_rows(X, cos, sin, Out, rows, half)


def _rotate_rows(X, cos, sin, Out, rows, half):
    x = X.reshape(rows, 2 * half)
    out = Out.view(rows, 2 * half)
    x1, x2 = x[:, :half], x[:, half:]
    out[:, :half] = x1 * cos - x2 * sin
    out[:, half:] = x1 * sin + x2 * cos


@contextlib.contextmanager
def _kernel(module, name, fn):
    real = getattr(module, name)
    setattr(module, name, PythonKernel(fn))
    try:
        yield
    finally:
        setattr(module, name, real)


def _compare_with_kernel(case: str, kernel: str, fn, run, **tolerance) -> None:
    before = load("SL201", case, "before")
    with _kernel(before, kernel, fn):
        expected = run(before)
    for suffix, module in fixed_variants("SL201", case):
        with _kernel(module, kernel, fn):
            assert_same(expected, run(module), strides=suffix == "after", **tolerance)


@EXAMPLES
@given(data=st.data(), batch=SIZE, heads=SIZE, seq=SIZE, half=SIZE, seed=st.integers(0, 99),
       angle_dtype=FLOATS)  # fmt: skip
def test_rotary_angle_cast_for_strided_kernel(data, batch, heads, seq, half, seed, angle_dtype):
    x = dense((batch, heads, seq, 2 * half), torch.float32, seed)
    angle = data.draw(laid_out((seq, half), angle_dtype))
    _compare_with_kernel(
        "rotary_angle_cast_for_strided_kernel", "_rotate_kernel", _rotate_angle,
        lambda m: m.apply_rotary(x, angle),
    )  # fmt: skip


@EXAMPLES
@given(data=st.data(), rows=SIZE, half=SIZE, seed=st.integers(0, 99))
def test_rotary_cos_sin_of_expanded_angle(data, rows, half, seed):
    x = dense((rows, 2 * half), torch.float32, seed)
    angle = data.draw(laid_out((half,), torch.float32))
    _compare_with_kernel(
        "rotary_cos_sin_of_expanded_angle", "_rotate_kernel", _rotate_cos_sin,
        lambda m: m.rotate_rows(x, angle),
        **_one_ulp_of_the_op(torch.float32, summed_magnitude=2 * x.abs().max().item()),
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_kernels_under_the_interpreter(seed):
    """The real kernels, on one small input each: the fixed code gives the same output."""
    x = dense((2, 1, 3, 4), torch.float32, seed)
    angle = dense((3, 2), torch.float16, seed + 1)
    rotary = "rotary_angle_cast_for_strided_kernel"
    expected = load("SL201", rotary, "before").apply_rotary(x, angle)
    for _, module in fixed_variants("SL201", rotary):
        assert_same(expected, module.apply_rotary(x, angle), strides=True)
    rows = dense((3, 6), torch.float32, seed)
    theta = dense((3,), torch.float32, seed + 2)
    cos_sin = "rotary_cos_sin_of_expanded_angle"
    expected = load("SL201", cos_sin, "before").rotate_rows(rows, theta)
    for _, module in fixed_variants("SL201", cos_sin):
        assert_same(expected, module.rotate_rows(rows, theta), strides=True)
