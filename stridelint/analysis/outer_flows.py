"""The broadcast dataflow outside function bodies: module-level code (scripts, notebook
cells) as one flow, each lambda's body as a flow of its own, and the facts that cross into
functions and lambdas from the scopes around them.

A broadcast value crosses only where Python guarantees it is the one bound: a module-level
name read inside a function, or a name a lambda closes over, carries its fact only when its
scope binds it exactly once (one assignment or a parameter, no `del`, no `global`/`nonlocal`
rebinding from elsewhere, no `from x import *`) and the reading scope binds nothing of that
name, not even in a comprehension. Then every read sees that value or raises NameError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis.dataflow import FunctionFlow, _spells_one_number
from stridelint.analysis.tree import assigned_names, descendants
from stridelint.analysis.values import Broadcast, Value
from stridelint.findings import Evidence

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.scopes import Scope

MODULE = "<module>"
_SINGLE_BINDINGS = ("assign", "annassign", "param")


@dataclass
class ModuleFlow(FunctionFlow):
    """The module's top-level statements, in order (functions and classes are analysed on
    their own; a `def` only binds its name here)."""

    @property
    def name(self) -> str:
        return MODULE

    def run(self) -> ModuleFlow:
        self.env = dict(self.initial_env)
        for statement in self.func.body:
            self._compound_or_line(statement)
        return self

    @cached_property
    def _number_names(self) -> frozenset[str]:
        numbers: set[str] = set()
        others: set[str] = set()
        for statement in self.func.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                continue
            for assign in descendants(statement, cst.Assign):
                for target in assign.targets:
                    if isinstance(target.target, cst.Name):
                        number = _spells_one_number(assign.value, frozenset())
                        (numbers if number else others).add(target.target.value)
        return frozenset(numbers - others)


@dataclass
class LambdaFlow(FunctionFlow):
    """A lambda's body, with its parameters unknown and the names it closes over seeded
    (closure_facts); `statement` is the statement that makes the lambda (suppressions go on
    its row), `enclosing` the flow that makes it."""

    statement: cst.CSTNode | None = None
    enclosing: FunctionFlow | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return "<lambda>"

    @property
    def caller(self) -> str:
        return self.enclosing.caller if self.enclosing is not None else MODULE

    def run(self) -> LambdaFlow:
        self.env = dict(self.initial_env)
        self._statement = self.statement
        self.ev(self.func.body)
        return self

    @cached_property
    def _number_names(self) -> frozenset[str]:
        outer = self.enclosing._number_names if self.enclosing is not None else frozenset()
        params = {n.value for n in descendants(self.func.params, cst.Name)}
        return frozenset(outer - params)


def global_facts(facts: ModuleFacts, module_flow: ModuleFlow) -> dict[str, Broadcast]:
    """Module-level names bound exactly once, to a broadcast tensor: what any function or
    lambda reading them sees (or NameError, before the binding ran). The scopes this needs
    are built only for a module that broadcasts at top level."""
    candidates = {
        name: value for name, value in module_flow.env.items() if isinstance(value, Broadcast)
    }  # fmt: skip
    if not candidates:
        return {}
    scopes = facts.scopes
    if scopes.module.star_import or "globals()" in facts.source.text:
        return {}
    found: dict[str, Broadcast] = {}
    for name, value in candidates.items():
        bindings = scopes.module_bindings(name)
        if len(bindings) != 1 or bindings[0].kind not in ("assign", "annassign"):
            continue
        message = f"`{name}` is bound once, at module level"
        evidence = (*value.evidence, Evidence(message, facts.position(bindings[0].node)))
        found[name] = Broadcast(value.state, evidence, local=False, small=value.small)
    return found


def function_globals(
    facts: ModuleFacts, func: cst.FunctionDef, globals_: dict[str, Broadcast]
) -> dict[str, Broadcast]:
    """The module facts a function reads: names it (or a comprehension or nested scope in
    it) never binds, that resolve to the module from its scope."""
    if not globals_:
        return {}
    scopes = facts.scopes
    inner = scopes.scope_of_function(func)
    local = facts.bound_names(func.body) | {n.value for n in descendants(func.params, cst.Name)}
    return {
        name: value for name, value in globals_.items()
        if name not in local and scopes.lookup(inner, name) is scopes.module
    }  # fmt: skip


def closure_facts(
    facts: ModuleFacts,
    lam: cst.Lambda,
    enclosing: FunctionFlow,
    made_in: dict[str, Value],
    globals_: dict[str, Broadcast],
) -> dict[str, Broadcast]:
    """What a lambda's body may assume of the names it reads: module facts (global_facts),
    and the broadcast values of the enclosing flow's names that its scope binds exactly
    once. The scopes this needs are built only when such a name is read."""
    read = {n.value for n in descendants(lam.body, cst.Name)}
    if not any(
        isinstance(made_in.get(n, enclosing.env.get(n)), Broadcast) or n in globals_ for n in read
    ):
        return {}
    scopes = facts.scopes
    inner = scopes.scope_of_function(lam)
    around = scopes.scope_of_function(enclosing.func)
    local = assigned_names(lam.body) | {n.value for n in descendants(lam.params, cst.Name)}
    seeded: dict[str, Broadcast] = {}
    for name in _reads(scopes, inner) - local:
        owner = scopes.lookup(inner, name)
        if owner is scopes.module:
            value = globals_.get(name)
        elif owner is around and _bound_once(scopes, owner, name):
            value = made_in.get(name, enclosing.env.get(name))
        else:
            continue
        if isinstance(value, Broadcast):
            seeded[name] = value
    return seeded


def _reads(scopes, scope: Scope) -> set[str]:
    names: set[str] = set()
    stack = [scope]
    while stack:
        current = stack.pop()
        names |= {load.value for load in current.loads}
        stack.extend(current.children)
    return names


def _bound_once(scopes, owner: Scope, name: str) -> bool:
    bindings = owner.bindings.get(name, [])
    return (
        len(bindings) == 1
        and bindings[0].kind in _SINGLE_BINDINGS
        and not scopes.declared_elsewhere(owner, name)
    )


def runs_at_module_level(scopes, scope: Scope) -> bool:
    """Whether code of `scope` may run while the module itself runs, top to bottom: the
    top-level code and the lambdas it makes (not inside a function)."""
    current: Scope | None = scope
    while current is not None:
        if current.kind in ("function", "class"):
            return False
        current = current.parent
    return True


def bound_late(
    facts: ModuleFacts, scopes, statement: cst.CSTNode, names: list[str], insertions: list[int]
) -> str | None:
    """Why code added at `statement` of module-level code could read a module name before it
    is bound (None: every one is bound before it runs): `insertions` are the offsets of the
    imports and helpers the fix adds, `names` the module names its code reads."""
    start = facts.span(statement)[0]
    if any(offset > start for offset in insertions):
        return "the helpers the fix adds would be defined after this module-level code runs"
    for name in names:
        bindings = scopes.module_bindings(name)
        if bindings and not any(
            scopes.is_top_level(b.statement) and facts.span(b.statement)[1] <= start
            for b in bindings
        ):
            return f"`{name}` is bound only after this module-level code runs"
    return None
