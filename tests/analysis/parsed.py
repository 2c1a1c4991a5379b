"""Small parsed modules for the analysis tests: the facts, and the nodes a test asks about."""

from __future__ import annotations

import textwrap

import libcst as cst

from stridelint.analysis.bindings import statement_of  # noqa: F401  # re-exported for the tests
from stridelint.analysis.dataflow import FunctionFlow
from stridelint.analysis.module import ModuleFacts
from stridelint.analysis.tree import walk
from stridelint.source import decode


def facts_of(code: str) -> ModuleFacts:
    """The facts of `code` (dedented), built as the engine builds them."""
    source = decode(textwrap.dedent(code).encode())
    return ModuleFacts(cst.parse_module(source.text), source)


def node(facts: ModuleFacts, code: str, kind: type[cst.CSTNode] = cst.CSTNode, nth: int = 0):
    """The nth node of `kind`, in source order, whose code is exactly `code`."""
    found = [n for n in walk(facts.module) if isinstance(n, kind) and facts.text_of(n) == code]
    return found[nth]


def flow_of(facts: ModuleFacts, function: str) -> FunctionFlow:
    (flow,) = facts.flows_named(function)
    return flow


def expand_value(code: str):
    """The value function `f` of `code` gives its first `.expand(...)` call."""
    facts = facts_of(code)
    call = next(
        n for n in walk(facts.module)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
        and n.func.attr.value == "expand"
    )  # fmt: skip
    return flow_of(facts, "f").value_of(call)
