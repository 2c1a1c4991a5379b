"""guards: whether a statement runs an expression exactly once, what it evaluates before
it, and where `:=` may stand."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis import guards
from stridelint.analysis.scopes import Scopes
from tests.analysis.parsed import facts_of, node, statement_of


def _condition(code: str, target: str):
    facts = facts_of(code)
    operand = node(facts, target, cst.Comparison)
    return guards.condition(facts.parents, operand, statement_of(facts, operand))


def test_an_op_in_a_plain_return_runs_exactly_once():
    assert _condition("def f(m):\n    return (m != 0).sum()\n", "m != 0") is None


def test_an_op_in_the_test_of_an_if_runs_exactly_once():
    assert _condition("def f(m):\n    if (m != 0).any():\n        pass\n", "m != 0") is None


def test_a_branch_of_a_conditional_expression_is_guarded():
    reason = _condition("def f(m, c):\n    return (m != 0).sum() if c else 0\n", "m != 0")
    assert "conditional expression" in reason


def test_the_right_side_of_and_is_guarded():
    code = 'def f(args):\n    return "M" in args and (args["M"] != 0).sum()\n'
    reason = _condition(code, 'args["M"] != 0')
    assert "and" in reason


def test_a_comprehension_element_runs_once_per_item():
    reason = _condition("def f(m, k):\n    return [(m != 0).sum() for _ in range(k)]\n", "m != 0")
    assert "comprehension" in reason


def test_a_lambda_body_runs_when_called():
    reason = _condition("def f(m):\n    g = lambda: (m != 0).sum()\n", "m != 0")
    assert "lambda" in reason


def test_assert_and_while_tests_are_guarded():
    assert "assert" in _condition("def f(m):\n    assert (m != 0).all()\n", "m != 0")
    assert "while" in _condition("def f(m):\n    while (m != 0).any():\n        pass\n", "m != 0")


def test_an_elif_test_is_guarded_seen_from_the_if_or_from_itself():
    code = "def f(m, c):\n    if c:\n        pass\n    elif (m != 0).all():\n        pass\n"
    assert "elif" in _condition(code, "m != 0")  # from the whole `if` statement
    facts = facts_of(code)
    operand = node(facts, "m != 0", cst.Comparison)
    elif_statement = operand
    while not isinstance(elif_statement, cst.If):
        elif_statement = facts.parents[elif_statement]
    assert "elif" in guards.condition(facts.parents, operand, elif_statement)


def test_the_later_operands_of_a_chained_comparison_are_guarded():
    facts = facts_of("def f(a, m):\n    return 0 < a < (m != 0).sum()\n")
    operand = node(facts, "m != 0", cst.Comparison)
    reason = guards.condition(facts.parents, operand, statement_of(facts, operand))
    assert "chained comparison" in reason


def test_lambdas_and_generator_expressions_run_later():
    facts = facts_of("def f(m, k):\n    g = ((m != 0).sum() for _ in range(k))\n")
    operand = node(facts, "m != 0", cst.Comparison)
    assert "generator" in guards.runs_later(facts.parents, operand, statement_of(facts, operand))
    facts = facts_of("def f(m, k):\n    g = [(m != 0).sum() for _ in range(k)]\n")
    operand = node(facts, "m != 0", cst.Comparison)
    assert guards.runs_later(facts.parents, operand, statement_of(facts, operand)) is None


def _load_of_m(facts) -> cst.Name:
    """The first read of `m` in the function body (not the parameter)."""
    return node(facts, "m", cst.Name, 1)


def _before(code: str, target: str) -> list[str]:
    facts = facts_of(code)
    operand = _load_of_m(facts)
    found = guards.evaluated_before(facts.parents, operand, statement_of(facts, operand))
    return [facts.text_of(n) for n in found if isinstance(n, cst.BaseExpression)]


def test_an_assignment_evaluates_its_value_before_its_targets():
    assert _before("def f(m):\n    out.total = (m != 0).sum()\n", "m") == []


def test_a_call_evaluates_its_function_and_earlier_arguments_first():
    found = _before("def f(m, counts):\n    counts.append(int((m != 0).sum()))\n", "m")
    assert sorted(found) == ["counts.append", "int"]


def test_a_conditional_expression_evaluates_its_test_first():
    assert "c" in _before("def f(m, c):\n    return (m != 0).sum() if c else 0\n", "m")


def test_keyword_arguments_before_a_star_argument_are_not_modelled():
    facts = facts_of("def f(m, g, rest):\n    g(k=(m != 0).sum(), *rest)\n")
    operand = _load_of_m(facts)
    assert guards.evaluated_before(facts.parents, operand, statement_of(facts, operand)) is None


def _inert(code: str, target: str) -> bool:
    facts = facts_of(code)
    scopes = Scopes(facts.module)
    operand = _load_of_m(facts)
    before = guards.evaluated_before(facts.parents, operand, statement_of(facts, operand))
    return guards.inert(scopes, before)


def test_bound_names_literals_and_module_attributes_are_inert():
    code = "import torch\n\ndef f(m, c: bool):\n    return torch.count_nonzero(m, c, (1, None))\n"
    assert _inert(code, "m")


def test_calls_and_unbound_names_are_not_inert():
    assert not _inert("def f(m, g):\n    return g(), (m != 0).sum()\n", "m")
    assert not _inert("def f(m, c):\n    if c:\n        b = 1\n    return b, (m != 0).sum()\n", "m")


def test_walrus_is_forbidden_in_a_comprehension_iterable_only():
    facts = facts_of("def f(m):\n    return [x for x in (m != 0).sum(dim=0)]\n")
    operand = _load_of_m(facts)
    assert guards.walrus_forbidden(facts.parents, operand, statement_of(facts, operand))
    facts = facts_of("def f(m, k):\n    return [(m != 0).sum() for x in range(k)]\n")
    operand = _load_of_m(facts)
    assert guards.walrus_forbidden(facts.parents, operand, statement_of(facts, operand)) is None
