"""purity: which expressions evaluate without effects, which statements may change a name."""

from __future__ import annotations

import pytest

from stridelint.analysis import purity
from tests.analysis.parsed import facts_of


def _is_pure(expression: str) -> bool:
    facts = facts_of(f"import math\nimport torch\ny = {expression}\n")
    return purity.is_pure(facts, facts.module.body[-1].body[0].value)


@pytest.mark.parametrize(
    "expression",
    ["x[:, None].float() * 2", "torch.where(m, x, 0.0)", "math.prod(x.shape) + len(s)"],
)
def test_views_casts_elementwise_ops_and_math_are_pure(expression):
    assert _is_pure(expression)


@pytest.mark.parametrize(
    "expression",
    ["x.add_(1)", "g(x)", "torch.add(x, 1, out=y)", "(k := x) + 1", "torch.rand(3)"],
)
def test_writes_unknown_calls_walrus_and_randomness_are_not_pure(expression):
    assert not _is_pure(expression)


def _is_view_expression(expression: str) -> bool:
    facts = facts_of(f"import torch\ny = {expression}\n")
    return purity.is_view_expression(facts, facts.module.body[-1].body[0].value)


@pytest.mark.parametrize(
    "expression",
    ["x", "self.mask[0]", "x.unsqueeze(0).expand(4, -1)", "torch.broadcast_to(m, x.shape)",
     "x[:, None].transpose(0, 1)", "x.view(x.size(0), -1)"],
)  # fmt: skip
def test_names_views_metadata_and_broadcasts_are_view_expressions(expression):
    assert _is_view_expression(expression)


@pytest.mark.parametrize(
    "expression",
    ["x.float()", "x.clone()", "g(x)", "(m := x)", "[t for t in x]", "lambda: x",
     "torch.where(m, x, 0)", "x[x.nonzero()]"],
)  # fmt: skip
def test_casts_copies_unknown_calls_and_hidden_code_are_not(expression):
    assert not _is_view_expression(expression)


def _may_change(statement: str, names: set[str]) -> bool:
    facts = facts_of(f"import torch\n{statement}\n")
    return purity.may_change(facts, facts.module.body[-1], names)


@pytest.mark.parametrize(
    "statement",
    ["x = 1", "x[0] = 1", "x.mul_(2)", "g(x)", "torch.add(a, b, out=x)", "y.set_(x)"],
)
def test_a_rebinding_or_a_write_may_change_the_name(statement):
    assert _may_change(statement, {"x"})


@pytest.mark.parametrize(
    "statement",
    ["y = x.sum()", "print(x)", "y = torch.add(x, 1)", "y.copy_(x)", "n = x.size(0)"],
)
def test_reads_do_not_change_the_name(statement):
    assert not _may_change(statement, {"x"})


def test_a_statement_about_other_names_changes_nothing():
    assert not _may_change("y = g(z)", {"x"})


@pytest.mark.parametrize(("method", "writes"), [
    ("add_", True), ("copy_", True), ("unsqueeze_", False), ("requires_grad_", False),
    ("_private_", False), ("add", False),
])  # fmt: skip
def test_writes_in_place_is_a_trailing_underscore_that_changes_data(method, writes):
    assert purity.writes_in_place(method) is writes


@pytest.mark.parametrize(("method", "reads"), [("copy_", True), ("set_", False), ("add", False)])
def test_only_reads_arguments_holds_for_in_place_methods_but_set(method, reads):
    assert purity.only_reads_arguments(method) is reads
