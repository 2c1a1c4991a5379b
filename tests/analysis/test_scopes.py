"""scopes: which scope binds a name, which binding a load sees, surely bound names, and the
allocator that hands fixes fresh names."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis.scopes import NameAllocator, Scopes, function_scope
from tests.analysis.parsed import facts_of, node


def _scopes(code: str):
    facts = facts_of(code)
    return facts, Scopes(facts.module)


def _function(facts, scopes: Scopes, name: str):
    func = next(f for f in facts.functions if f.name.value == name)
    return scopes.scope_of_function(func)


def _load(facts, scopes: Scopes, statement: str, name: str, nth: int = 0) -> cst.Name:
    line = node(facts, statement)
    loads = [n for n in _names(line) if n.value == name and scopes.is_load(n)]
    return loads[nth]


def _names(root: cst.CSTNode):
    stack = [root]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            yield current
        stack.extend(reversed(current.children))


def test_a_comprehension_variable_is_not_the_function_variable_of_the_same_name():
    facts, scopes = _scopes(
        """
        def f(m, masks):
            return [(m != 0).sum() for m in masks], m
        """
    )
    statement = "return [(m != 0).sum() for m in masks], m"
    inside = _load(facts, scopes, statement, "m", 0)
    outside = _load(facts, scopes, statement, "m", 1)
    assert scopes.resolve(inside).kind == "comprehension"
    assert scopes.resolve(outside) is _function(facts, scopes, "f")


def test_a_walrus_in_a_comprehension_binds_in_the_function():
    facts, scopes = _scopes(
        """
        def f(xs):
            ys = [(last := x) for x in xs]
            return last
        """
    )
    assert "last" in _function(facts, scopes, "f").bindings


def test_a_class_body_is_invisible_to_its_methods():
    facts, scopes = _scopes(
        """
        scale = 2

        class K:
            scale = 3

            def get(self):
                return scale
        """
    )
    load = _load(facts, scopes, "return scale", "scale")
    assert scopes.resolve(load) is scopes.module


def test_global_and_nonlocal_bindings_belong_to_their_owner():
    facts, scopes = _scopes(
        """
        def outer():
            x = 1

            def inner():
                nonlocal x
                x = 2

            def setter():
                global G
                G = x

            return x
        """
    )
    outer = _function(facts, scopes, "outer")
    assert len(outer.bindings["x"]) == 2  # its own and inner's
    assert "G" in scopes.module.bindings
    assert scopes.declared_elsewhere(outer, "x")


def test_a_function_alone_binds_what_the_module_table_binds_in_it():
    facts, scopes = _scopes(
        """
        x = 0

        class C:
            def method(self, flag, n):
                y = [z := i for i in n]

                def inner():
                    nonlocal flag, y
                    flag = y = 1

                def other():
                    global x
                    x = 2

                import os
                match n:
                    case [w]:
                        pass
                del z
                return lambda flag: flag
        """
    )
    method = next(f for f in facts.functions if f.name.value == "method")
    whole, alone = scopes.scope_of_function(method), function_scope(method)
    kinds = {name: [b.kind for b in found] for name, found in whole.bindings.items()}
    assert {name: [b.kind for b in found] for name, found in alone.bindings.items()} == kinds
    assert kinds["flag"] == ["param", "assign"] and kinds["z"] == ["walrus", "del"]
    assert "x" not in kinds and "w" in kinds and "os" in kinds


def test_loads_inside_fstrings_lambdas_and_nested_functions_count():
    facts, scopes = _scopes(
        """
        def f(m):
            e = m != 0
            text = f"{e.shape}"
            peek = lambda: e.sum()

            def inner():
                return e
            return e.sum()
        """
    )
    owner = _function(facts, scopes, "f")
    assert len(scopes.loads_of(owner, "e")) == 4


def test_parameters_and_earlier_assignments_are_surely_bound_but_branch_ones_are_not():
    facts, scopes = _scopes(
        """
        def f(a, c):
            b = 1
            if c:
                d = 2
            while c:
                e = 3
            return a + b + d + e
        """
    )
    statement = "return a + b + d + e"
    bound = {n: scopes.definitely_bound(_load(facts, scopes, statement, n)) for n in "abde"}
    assert bound == {"a": True, "b": True, "d": False, "e": False}


def test_a_deleted_local_is_not_surely_bound():
    facts, scopes = _scopes(
        """
        def f(c):
            b = 1
            if c:
                del b
            return b
        """
    )
    assert not scopes.definitely_bound(_load(facts, scopes, "return b", "b"))


def test_an_elif_test_sees_the_bindings_before_the_if():
    facts, scopes = _scopes(
        """
        def f(c):
            b = 1
            if c:
                pass
            elif b:
                pass
        """
    )
    load = next(n for n in _names(facts.module) if n.value == "b" and scopes.is_load(n))
    assert scopes.definitely_bound(load)


def test_attribute_names_and_keywords_are_not_loads():
    facts, scopes = _scopes(
        """
        def f(x):
            return x.sum(dim=0)
        """
    )
    names = {n.value: scopes.is_load(n) for n in _names(node(facts, "return x.sum(dim=0)"))}
    assert names == {"x": True, "sum": False, "dim": False}


def test_free_loads_are_the_reads_a_new_module_name_would_change():
    facts, scopes = _scopes(
        """
        def f(math):
            return math

        def g():
            return torch
        """
    )
    assert scopes.free_loads("math") == []
    assert [n.value for n in scopes.free_loads("torch")] == ["torch"]


def test_the_allocator_never_hands_out_a_name_twice_in_one_function():
    facts, scopes = _scopes(
        """
        def f(m, m_small):
            return [m_small_1 for m_small_1 in m]
        """
    )
    allocator = NameAllocator(scopes)
    owner = _function(facts, scopes, "f")
    first, second = allocator.local(owner, "m_small"), allocator.local(owner, "m_small")
    assert (first, second) == ("m_small_2", "m_small_3")


def test_a_module_name_is_skipped_where_a_local_shadows_it():
    facts, scopes = _scopes(
        """
        import math

        def f(x):
            math = 3
            return x
        """
    )
    allocator = NameAllocator(scopes)
    owner = _function(facts, scopes, "f")

    def classify(candidate: str) -> str:
        return "ours" if candidate == "math" else "free"

    chosen = allocator.module_level("import math", ["math", "_math"], [owner], classify)
    assert chosen == ("_math", False)


def test_a_module_name_taken_for_one_purpose_is_not_given_to_another():
    facts, scopes = _scopes("x = 1\n")
    allocator = NameAllocator(scopes)
    always_free = lambda candidate: "free"  # noqa: E731
    first = allocator.module_level("helper a", ["_h", "_h2"], [scopes.module], always_free)
    second = allocator.module_level("helper b", ["_h", "_h2"], [scopes.module], always_free)
    again = allocator.module_level("helper a", ["_h", "_h2"], [scopes.module], always_free)
    assert (first, second, again) == (("_h", False), ("_h2", False), ("_h", False))


def test_dynamic_scope_builtins_are_reported_only_when_not_shadowed():
    facts, scopes = _scopes(
        """
        def f():
            return locals()

        def g(vars):
            return vars()
        """
    )
    assert scopes.uses_dynamic_scope(_function(facts, scopes, "f"))
    assert not scopes.uses_dynamic_scope(_function(facts, scopes, "g"))
