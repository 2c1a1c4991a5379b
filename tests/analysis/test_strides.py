"""Stride facts: names bound to strides, and helpers that return a parameter's strides."""

from __future__ import annotations

import textwrap

import libcst as cst

from stridelint.analysis.strides import StrideHelper, stride_aliases, stride_helper


def functions(code: str) -> list[cst.FunctionDef]:
    module = cst.parse_module(textwrap.dedent(code))
    return [s for s in module.body if isinstance(s, cst.FunctionDef)]


HELPER = """
def _strides(t, dim, strides=None):
    if t is None:
        return 0, 0, 0
    if strides is None:
        strides = t.stride()
    return strides[dim], strides[1], strides[2]
"""


def test_helper_returning_a_parameters_strides_is_summarized():
    (helper,) = functions(HELPER)
    assert stride_helper(helper) == StrideHelper("_strides", 0, "t")


def test_helper_returning_anything_else_is_not_a_stride_helper():
    code = "def f(t):\n    return t.stride(0), t.shape[0]\n"
    (func,) = functions(code)
    assert stride_helper(func) is None


def test_helper_mixing_two_parameters_is_not_a_stride_helper():
    code = "def f(a, b):\n    return a.stride(0), b.stride(0)\n"
    (func,) = functions(code)
    assert stride_helper(func) is None


def test_tuple_unpacking_of_a_helper_call_aliases_each_name():
    (helper, caller) = functions(HELPER + "def g(mask, d):\n    s_r, s_0, s_1 = _strides(mask, d)\n")
    aliases = stride_aliases(caller, {"_strides": stride_helper(helper)}.get)
    assert aliases == {"s_r": "mask", "s_0": "mask", "s_1": "mask"}


def test_helper_called_with_the_tensor_by_keyword():
    (helper, caller) = functions(HELPER + "def g(mask, d):\n    a, b, c = _strides(dim=d, t=mask)\n")
    assert stride_aliases(caller, {"_strides": stride_helper(helper)}.get)["a"] == "mask"


def test_direct_stride_bindings():
    (func,) = functions("def g(x):\n    s = x.stride()\n    s0 = x.stride(0)\n    s1 = x.stride()[1]\n")
    assert stride_aliases(func) == {"s": "x", "s0": "x", "s1": "x"}
