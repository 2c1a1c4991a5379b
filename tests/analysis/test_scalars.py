"""scalars: which expressions are surely Python numbers, never tensors."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis.scalars import is_python_number
from stridelint.analysis.scopes import Scopes
from tests.analysis.parsed import facts_of, node


def _number(code: str, expression: str) -> bool:
    facts = facts_of(code)
    found = node(facts, expression, cst.BaseExpression, -1)  # the read, not a binding
    return is_python_number(facts, Scopes(facts.module), found)


def test_literals_sizes_and_number_builtins_are_numbers():
    code = "def f(x):\n    return 2.5, x.size(0), x.shape[1], x.dim(), int(x), len(x), x.item()\n"
    for expression in ("2.5", "x.size(0)", "x.shape[1]", "x.dim()", "int(x)", "len(x)", "x.item()"):
        assert _number(code, expression), expression


def test_abs_and_round_of_a_tensor_are_tensors():
    code = "def f(t, w: float):\n    return abs(t), round(t), abs(w), min(t, 1)\n"
    assert not _number(code, "abs(t)")
    assert not _number(code, "round(t)")
    assert not _number(code, "min(t, 1)")
    assert _number(code, "abs(w)")


def test_annotated_parameters_and_names_assigned_numbers_are_numbers():
    code = """
    def f(t, k: int, w):
        s = k * 2
        u = abs(t)
        return s, u, w
    """
    assert _number(code, "s")
    assert not _number(code, "u")
    assert not _number(code, "w")


def test_a_shadowed_builtin_is_not_trusted():
    code = "def f(t, int):\n    return int(t)\n"
    assert not _number(code, "int(t)")


def test_math_functions_are_numbers_except_prod_of_anything():
    code = "import math\n\ndef f(t, k: int):\n    return math.sqrt(k), math.prod(t)\n"
    assert _number(code, "math.sqrt(k)")
    assert not _number(code, "math.prod(t)")


def test_a_loop_variable_over_range_is_a_number():
    code = "def f(t, n: int):\n    for i in range(n):\n        y = i\n    return y\n"
    assert _number(code, "i")
