"""Safe fixes outside function bodies keep what a caller observes (outer_forms.py): the
generated programs with their final expression in a lambda the function calls, and run as
module-level code, directly and in a module-level lambda. The long run:
`python benchmarks/fix_soundness_outer.py`."""

from __future__ import annotations

import ast
import functools

import pytest

from tests.fix_soundness.harness import Tally, check_module, safely_fixed
from tests.fix_soundness.outer_forms import check_module_level, lambda_form, module_level_forms
from tests.fix_soundness.programs import generate_module

FUNCTIONS = 40
LAMBDA_SEEDS = range(7000, 7005)
MODULE_LEVEL_SEEDS = range(7100, 7104)


@functools.cache
def _module(seed: int):
    return generate_module(seed, FUNCTIONS)


def _assert_sound(tally: Tally) -> None:
    assert not tally.errors, "\n".join(tally.errors)
    assert not tally.differences, "\n\n".join(d.report() for d in tally.differences[:5])


def test_safe_fixes_in_lambdas_that_close_over_locals_keep_everything() -> None:
    tally = Tally()
    for seed in LAMBDA_SEEDS:
        tally.add(check_module(lambda_form(_module(seed))))
    _assert_sound(tally)
    assert tally.programs >= 180 and tally.rewritten >= tally.programs // 3


def test_fixes_reach_inside_the_lambdas() -> None:
    """The lambda form proves something only if fixes land inside the lambda bodies."""
    fixed, _ = safely_fixed(lambda_form(_module(LAMBDA_SEEDS[0])).source)
    inside = [
        node for node in ast.walk(ast.parse(fixed))
        if isinstance(node, ast.Lambda) and any(
            isinstance(inner, ast.NamedExpr) and "narrow" in ast.unparse(inner.value)
            for inner in ast.walk(node.body)
        )
    ]  # fmt: skip
    assert len(inside) >= 5


@pytest.mark.parametrize("in_lambda", [False, True], ids=["top-level", "module lambda"])
def test_safe_fixes_of_module_level_code_keep_everything(in_lambda: bool) -> None:
    tally = Tally()
    for seed in MODULE_LEVEL_SEEDS:
        forms = module_level_forms(_module(seed), in_lambda=in_lambda)
        tally.add(check_module_level(seed, forms))
    _assert_sound(tally)
    assert tally.programs >= 100 and tally.rewritten >= tally.programs // 4
