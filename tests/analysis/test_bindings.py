"""bindings: which assignment a load reads, and which loads read an assignment."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis import bindings
from stridelint.analysis.tree import descendants
from tests.analysis.parsed import facts_of, flow_of, node, statement_of


def _reaching(code: str, load_in: str):
    """reaching_assignment for the load of `e` in the statement whose code is `load_in`."""
    facts = facts_of(code)
    statement = node(facts, load_in, cst.SimpleStatementLine)
    load = next(n for n in descendants(statement, cst.Name) if n.value == "e")
    return facts, bindings.reaching_assignment(facts, load, statement)


def test_reaching_assignment_is_the_plain_assignment_a_load_reads():
    facts, found = _reaching(
        """
        def f(x, n):
            e = x.expand(n, -1)
            y = e + 1
        """,
        "y = e + 1",
    )
    assign, statement, between = found
    assert facts.text_of(assign.value) == "x.expand(n, -1)"
    assert facts.text_of(statement) == "e = x.expand(n, -1)"
    assert between == []


def test_reaching_assignment_lists_the_statements_in_between():
    facts, (_, _, between) = _reaching(
        """
        def f(x, n):
            e = x.expand(n, -1)
            print(n)
            y = e + 1
        """,
        "y = e + 1",
    )
    assert [facts.text_of(s) for s in between] == ["print(n)"]


def test_reaching_assignment_counts_an_enclosing_loop_as_in_between():
    facts, (_, _, between) = _reaching(
        """
        def f(x, n):
            e = x.expand(n, -1)
            for i in range(n):
                y = e + i
        """,
        "y = e + i",
    )
    assert [type(s) for s in between] == [cst.For]


def test_reaching_assignment_is_none_after_a_binding_that_is_not_plain():
    _, found = _reaching(
        """
        def f(x, n):
            e, g = x.expand(n, -1), x
            y = e + 1
        """,
        "y = e + 1",
    )
    assert found is None


def test_reaching_assignment_is_none_for_a_parameter():
    _, found = _reaching(
        """
        def f(e):
            y = e + 1
        """,
        "y = e + 1",
    )
    assert found is None


def test_simple_assignment_is_one_name_bound_alone():
    facts = facts_of("a = 1\nb = c = 2\nd = 3; f = 4\n")
    first, chained, two = facts.module.body
    assert bindings.simple_assignment(first, "a") is first.body[0]
    assert bindings.simple_assignment(chained, "b") is None
    assert bindings.simple_assignment(two, "d") is None


def _loads_after(code: str, bound_in: str) -> list[str]:
    """The statements holding the loads of `t` that may see the value bound in `bound_in`."""
    facts = facts_of(code)
    statement = node(facts, bound_in, cst.SimpleStatementLine)
    loads = bindings.loads_after(facts, flow_of(facts, "f"), "t", statement)
    return [facts.text_of(statement_of(facts, load)) for load in loads]


def test_loads_after_stop_at_a_later_rebinding():
    code = """
    def f(x):
        t = x + 1
        a = t * 2
        t = t - 1
        b = t
    """
    assert _loads_after(code, "t = x + 1") == ["a = t * 2", "t = t - 1"]


def test_loads_after_stop_at_a_rebinding_in_an_enclosing_block():
    code = """
    def f(x, c, d):
        if c:
            if d:
                t = x + 1
            else:
                t = x
            a = t * 2
            t = ~t
        return t
    """
    # every path from the inner binding runs `t = ~t` before the return
    assert _loads_after(code, "t = x + 1") == ["a = t * 2", "t = ~t"]


def test_loads_after_do_not_stop_at_a_rebinding_on_one_path():
    code = """
    def f(x, c):
        t = x + 1
        if c:
            t = x
        return t
    """
    assert _loads_after(code, "t = x + 1") == ["return t"]


def test_loads_after_include_every_load_of_an_enclosing_loop():
    code = """
    def f(x, n):
        t = x
        for i in range(n):
            a = t + 1
            t = x * i
    """
    assert _loads_after(code, "t = x * i") == ["a = t + 1"]


def test_bound_around_names_what_a_comprehension_and_a_walrus_bind():
    facts = facts_of(
        """
        def f(e, xs):
            ys = [e + x for x in xs if (k := x)]
        """
    )
    load = node(facts, "e", cst.Name, nth=1)
    bound = bindings.bound_around(facts, load, statement_of(facts, load))
    assert {"x", "k"} <= bound and "e" not in bound


def test_bound_around_is_empty_outside_comprehensions_and_lambdas():
    facts = facts_of(
        """
        def f(e, x):
            y = e + x
        """
    )
    load = node(facts, "e", cst.Name, nth=1)
    assert bindings.bound_around(facts, load, statement_of(facts, load)) == set()


def test_loads_after_skip_the_other_branches_of_an_if_the_binding_is_in():
    code = """
    def f(x, c, d):
        if c:
            t = x + 1
            a = t * 2
        elif d:
            b = t
        else:
            e = t
        return t
    """
    assert _loads_after(code, "t = x + 1") == ["a = t * 2", "return t"]


def test_loads_after_keep_the_other_branch_inside_a_loop():
    code = """
    def f(xs, c):
        for x in xs:
            if c:
                t = x + 1
            else:
                b = t
    """
    # a later pass may take the `else` branch and read the earlier pass's value
    assert _loads_after(code, "t = x + 1") == ["b = t"]


def _possible(code: str, load_in: str) -> list[str]:
    facts = facts_of(code)
    statement = node(facts, load_in, cst.SimpleStatementLine)
    load = next(n for n in descendants(statement, cst.Name) if n.value == "e")
    return sorted(facts.text_of(a.value) for a, _ in bindings.possible_assignments(facts, load, statement))


def test_possible_assignments_follow_each_branch_and_the_binding_a_branch_leaves():
    code = """
        def f(x, n, c):
            e = x.expand(n, -1)
            if c:
                e, _ = split(e)
            elif n:
                e = x + 1
            y = e + 1
        """
    assert _possible(code, "y = e + 1") == ["x + 1", "x.expand(n, -1)"]


def test_possible_assignments_of_an_if_whose_every_branch_binds_leave_out_the_earlier_one():
    code = """
        def f(x, n, c):
            e = x.expand(n, -1)
            if c:
                e = x * 2
            else:
                e = x * 3
            y = e + 1
        """
    assert _possible(code, "y = e + 1") == ["x * 2", "x * 3"]


def _every(code: str):
    facts = facts_of(code)
    statement = node(facts, "y = e + 1", cst.SimpleStatementLine)
    load = next(n for n in descendants(statement, cst.Name) if n.value == "e")
    found = bindings.every_assignment(facts, load, statement)
    return None if found is None else sorted(facts.text_of(a.value) for a, _ in found)


def test_every_assignment_lists_each_plain_binding_a_load_may_read():
    assert _every("def f(x, c):\n    e = None\n    if c:\n        e = x.half()\n    y = e + 1\n") == [
        "None", "x.half()"
    ]
    assert _every(
        "def f(x, c):\n    if c:\n        e = x.half()\n    else:\n        e = x.float()\n    y = e + 1\n"
    ) == ["x.float()", "x.half()"]


def test_every_assignment_is_none_where_a_binding_on_the_way_is_not_plain():
    # a tuple binding in one branch: what it holds is not known, so the list would be partial
    assert _every("def f(x, c):\n    e = None\n    if c:\n        e, _ = x\n    y = e + 1\n") is None
    assert _every("def f(x, c):\n    if c:\n        e = x.half()\n    y = e + 1\n") is None  # unbound else
