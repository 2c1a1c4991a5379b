"""mutation: what may rebind a name or change its object between two points of a function."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis import mutation
from stridelint.analysis.scopes import Scopes
from tests.analysis.parsed import facts_of, node


def _changes(code: str, start: str, end: str, names: set[str]) -> str | None:
    """Whether `names` may change between the end of statement `start` and the start of
    statement `end` of function f."""
    facts = facts_of(code)
    scopes = Scopes(facts.module)
    func = facts.functions[0]
    first = node(facts, start, cst.SimpleStatementLine)
    last = node(facts, end, cst.SimpleStatementLine)
    region = mutation.region_between(
        facts, func, facts.span(first)[1], facts.span(last)[0], (first, last)
    )
    return mutation.changes(facts, scopes, scopes.scope_of_function(func), names, region)


def test_reads_in_between_change_nothing():
    code = """
    def f(m, dim):
        a = m.sum(dim=dim)
        print(dim, m.shape, len(m))
        b = a.sum()
    """
    assert _changes(code, "a = m.sum(dim=dim)", "b = a.sum()", {"m", "dim"}) is None


def test_rebinding_in_between_is_a_change():
    code = """
    def f(m, dim):
        a = m.sum(dim=dim)
        dim = 0
        b = a.sum()
    """
    assert "rebound" in _changes(code, "a = m.sum(dim=dim)", "b = a.sum()", {"dim"})


def test_in_place_methods_item_and_attribute_stores_are_changes():
    template = """
    def f(m, o):
        a = m.sum()
        {change}
        b = a.sum()
    """
    changes = (("m.t_()", "m"), ("m[0] = 1", "m"), ("o.mask = m", "o"), ("m.transpose_(0, 1)", "m"))
    for change, name in changes:
        code = template.format(change=change)
        assert _changes(code, "a = m.sum()", "b = a.sum()", {name}) is not None, change


def test_passing_a_value_to_an_unknown_call_is_a_change():
    code = """
    def f(dims, g):
        a = 1
        g(dims)
        b = 2
    """
    assert "g(dims)" in _changes(code, "a = 1", "b = 2", {"dims"})


def test_an_alias_made_before_lets_code_in_between_change_the_object():
    code = """
    def f(dims, g):
        alias = dims
        a = 1
        alias.append(0)
        b = 2
    """
    assert "alias.append(0)" in _changes(code, "a = 1", "b = 2", {"dims"})


def test_a_new_local_object_no_other_code_reaches_survives_unknown_calls():
    code = """
    def f(x, n, g):
        m = x.expand(n, -1)
        a = 1
        g(n)
        b = 2
    """
    assert _changes(code, "a = 1", "b = 2", {"m"}) is None


def test_an_alias_made_by_a_self_returning_method_is_a_change():
    code = """
    def f(m):
        a = 1
        alias = m.float()
        b = 2
    """
    assert _changes(code, "a = 1", "b = 2", {"m"}) is not None


def test_a_loop_around_a_point_counts_as_in_between():
    code = """
    def f(m, dim, k):
        for i in range(k):
            dim = i
            a = m.sum(dim=dim)
        b = 2
    """
    assert "rebound" in _changes(code, "a = m.sum(dim=dim)", "b = 2", {"dim"})


def test_a_nested_function_declaring_nonlocal_changes_it_when_a_call_runs():
    code = """
    def f(dim):
        def reset():
            nonlocal dim
            dim = 0
        a = 1
        reset()
        b = 2
    """
    assert "nonlocal" in _changes(code, "a = 1", "b = 2", {"dim"})


def test_a_global_may_change_in_any_call():
    code = """
    DIM = 0

    def f(g):
        a = DIM
        g()
        b = 2
    """
    assert "global" in _changes(code, "a = DIM", "b = 2", {"DIM"})


def test_effects_tells_reads_from_writes():
    code = "import torch\n\ndef f(a, b, g):\n    return a.mean(), torch.sum(b), g(b), (c := 1)\n"
    facts = facts_of(code)
    scopes = Scopes(facts.module)
    assert mutation.effects(facts, scopes, [node(facts, "a.mean()")]) is None
    assert mutation.effects(facts, scopes, [node(facts, "torch.sum(b)")]) is None
    assert mutation.effects(facts, scopes, [node(facts, "g(b)")]) is not None
    assert mutation.effects(facts, scopes, [node(facts, "c := 1", cst.NamedExpr)]) is not None
