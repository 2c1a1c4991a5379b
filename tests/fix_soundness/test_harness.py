"""The comparison the soundness check relies on tells apart what a caller could tell apart."""

from __future__ import annotations

import types

import torch

from tests.fix_soundness import harness
from tests.fix_soundness.programs import Program, TensorRecipe


def test_equal_values_with_other_strides_differ():
    dense = torch.zeros(2, 3)
    expanded = torch.zeros(1, 3).expand(2, 3)
    assert "strides" in harness.difference(dense, expanded, "result")


def test_dtype_shape_and_values_are_compared():
    a = torch.tensor([1, 2])
    assert "dtype" in harness.difference(a, a.float(), "r")
    assert "shape" in harness.difference(a, a[:1], "r")
    assert "values" in harness.difference(a, torch.tensor([1, 3]), "r")


def test_nan_matches_nan_but_python_types_must_match():
    nan = torch.tensor([float("nan")])
    assert harness.difference(nan, nan.clone(), "r") is None
    assert "int instead of float" in harness.difference(1.0, 1, "r")
    assert harness.difference((1, [2.0]), (1, [2.0]), "r") is None


def test_a_fixed_module_that_writes_into_an_argument_is_caught():
    original = types.ModuleType("original")
    fixed = types.ModuleType("fixed")
    exec("def f(t):\n    return t.sum()\n", original.__dict__)  # noqa: S102
    exec("def f(t):\n    t.add_(1)\n    return t.sum() - t.numel()\n", fixed.__dict__)  # noqa: S102
    program = Program("f", ((TensorRecipe((3,), "int64", seed=1),),), frozenset())
    tally = harness.Tally()
    harness._check_program(0, program, original, fixed, {}, {}, tally)
    assert len(tally.differences) == 1
    assert "arguments after the call" in tally.differences[0].what


def test_a_different_exception_type_is_caught():
    original = types.ModuleType("original")
    fixed = types.ModuleType("fixed")
    exec("def f(t):\n    raise IndexError\n", original.__dict__)  # noqa: S102
    exec("def f(t):\n    raise RuntimeError\n", fixed.__dict__)  # noqa: S102
    program = Program("f", ((1,),), frozenset())
    tally = harness.Tally()
    harness._check_program(0, program, original, fixed, {}, {}, tally)
    assert "raised IndexError" in tally.differences[0].what
