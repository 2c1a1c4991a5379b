"""Which binding of a name a load reads, and which loads read a binding.

A fix that repeats the expression a name was bound to, or that changes the value a name is
bound to, must know that the name still means that value where it acts: no rebinding in
between, no loop carrying another value around, no nested function or comprehension that
sees the name on its own terms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis.tree import walk

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import FunctionFlow
    from stridelint.analysis.module import ModuleFacts


def assigned_name(statement: cst.CSTNode | None) -> str | None:
    """The one name a statement `name = value` binds, when it is that alone."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
        target = assign.targets[0].target
        return target.value if isinstance(target, cst.Name) else None
    return None


def statement_of(facts: ModuleFacts, inner: cst.CSTNode) -> cst.CSTNode:
    """The statement of a block that holds inner (what the dataflow calls its statement)."""
    current = inner
    while not isinstance(facts.parents.get(current), (cst.IndentedBlock, cst.Module)):
        current = facts.parents[current]
    return current


def simple_assignment(statement: cst.CSTNode, name: str) -> cst.Assign | None:
    """The `name = value` that statement is, when it is that alone."""
    if assigned_name(statement) == name:
        return statement.body[0]  # type: ignore[attr-defined, return-value]
    return None


def reaching_assignment(
    facts: ModuleFacts, name: cst.Name, statement: cst.CSTNode | None
) -> tuple[cst.Assign, cst.CSTNode, list[cst.CSTNode]] | None:
    """The plain `name = value` that `name`, loaded in `statement`, certainly reads; and the
    statements that may run between the two (a whole loop when one encloses the load but not
    the assignment). None when the last binding is anything else or is not certain."""
    found = _last_binding(facts, name, statement)
    if found is None:
        return None
    earlier, between = found
    assign = simple_assignment(earlier, name.value)
    return (assign, earlier, between) if assign is not None else None


def reads_the_parameter(facts: ModuleFacts, name: cst.Name, statement: cst.CSTNode | None) -> bool:
    """`name`, loaded in `statement`, reads what the enclosing function was called with: no
    statement before it binds the name, nor does a loop around it (whose later statements run
    before its next pass)."""
    if _last_binding(facts, name, statement) is not None:
        return False
    node = facts.parents.get(statement) if statement is not None else None
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if isinstance(node, (cst.For, cst.While)) and name.value in facts.bound_names(node):
            return False
        node = facts.parents.get(node)
    return isinstance(node, cst.FunctionDef)


def possible_assignments(
    facts: ModuleFacts, name: cst.Name, statement: cst.CSTNode | None
) -> list[tuple[cst.Assign, cst.CSTNode]]:
    """The plain `name = value` assignments a load may read: the certain one, or through the
    `if` that last binds it, each branch's last binding when it is one and, where a branch
    leaves the name alone (or there is no `else`), those before the `if`. Bindings of other
    kinds are left out: what they hold is not known."""
    return _assignments(facts, name, statement, every=False) or []


def every_assignment(
    facts: ModuleFacts, name: cst.Name, statement: cst.CSTNode | None
) -> list[tuple[cst.Assign, cst.CSTNode]] | None:
    """`possible_assignments` when they are all the bindings the load may read (`m = None`,
    then `if c: m = x.bool()`); None when any binding on the way is of another kind."""
    return _assignments(facts, name, statement, every=True)


def every_assignment_or_the_parameter(
    facts: ModuleFacts, name: cst.Name, statement: cst.CSTNode | None
) -> list[tuple[cst.Assign, cst.CSTNode] | None] | None:
    """`every_assignment`, where a path that binds nothing reads the function's parameter
    (`if c: mask = torch.cat([mask, m])`), with None in the list for that path."""
    return _assignments(facts, name, statement, every=True, parameter=True)


def _assignments(
    facts: ModuleFacts,
    name: cst.Name,
    statement: cst.CSTNode | None,
    every: bool,
    parameter: bool = False,
) -> list | None:
    found = _last_binding(facts, name, statement)
    if found is None:
        return [None] if parameter and reads_the_parameter(facts, name, statement) else None
    earlier = found[0]
    assign = simple_assignment(earlier, name.value)
    if assign is not None:
        return [(assign, earlier)]
    if not isinstance(earlier, cst.If):
        return None
    bodies, has_else = _branches(earlier)
    falls_through = not has_else
    possible = []
    for body in bodies:
        end = _branch_end(facts, body, name.value)
        if end is None:
            falls_through = True
        elif (branch_assign := simple_assignment(end, name.value)) is not None:
            possible.append((branch_assign, end))
        elif every:
            return None
    if falls_through:
        before = _assignments(facts, name, earlier, every, parameter)
        if before is None and every:
            return None
        possible += before or []
    return possible


def _branches(statement: cst.If) -> tuple[list[cst.BaseSuite], bool]:
    """The bodies of an `if` and its `elif`s and `else`, and whether it has an `else`."""
    bodies: list[cst.BaseSuite] = []
    current: cst.If | cst.Else | None = statement
    while isinstance(current, cst.If):
        bodies.append(current.body)
        current = current.orelse
    if isinstance(current, cst.Else):
        bodies.append(current.body)
    return bodies, current is not None


def _branch_end(facts: ModuleFacts, body: cst.BaseSuite, name: str) -> cst.CSTNode | None:
    """The last statement of a branch that binds `name`; None when none does. A one-line
    body (`if c: x = 1`) counts as its whole self."""
    if not isinstance(body, cst.IndentedBlock):
        return body if name in facts.bound_names(body) else None
    return next((s for s in reversed(body.body) if name in facts.bound_names(s)), None)


def _last_binding(
    facts: ModuleFacts, name: cst.Name, statement: cst.CSTNode | None
) -> tuple[cst.CSTNode, list[cst.CSTNode]] | None:
    """The last statement before `statement` that binds `name`, in its block or an enclosing
    one up to the function, and the statements between (an enclosing loop among them)."""
    between: list[cst.CSTNode] = []
    node = statement
    while node is not None:
        block = facts.parents.get(node)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return None
        siblings = list(block.body)
        index = next(i for i, s in enumerate(siblings) if s is node)
        for earlier in reversed(siblings[:index]):
            if name.value in facts.bound_names(earlier):
                return earlier, between
            between.append(earlier)
        owner = facts.parents.get(block)
        while owner is not None and not (
            isinstance(owner, cst.BaseStatement)
            and isinstance(facts.parents.get(owner), (cst.IndentedBlock, cst.Module))
        ):
            owner = facts.parents.get(owner)
        if owner is None or isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
            return None
        if isinstance(owner, (cst.For, cst.While)):
            between.append(owner)  # a later statement of the loop runs before the next pass
        node = owner
    return None


def loads_after(
    facts: ModuleFacts, flow: FunctionFlow, name: str, statement: cst.CSTNode | None
) -> list[cst.Name]:
    """The loads of `name` that may see the value bound in `statement`: every later load
    (every load of an enclosing loop), up to a later plain rebinding that every path from
    `statement` runs: in its block or in an enclosing one."""
    if statement is None:
        return []
    start = facts.span(statement)[1]
    loop = _outermost_loop(facts, flow.func, statement)
    loop_span = facts.span(loop) if loop is not None else None
    cut = None if loop is not None else _first_later_rebinding(facts, flow, name, statement)
    other_branches = _other_branches(facts, flow.func, statement)
    found = []
    for load in flow.loads:
        if load.value != name:
            continue
        offset = facts.span(load)[0]
        if any(low <= offset < high for low, high in other_branches):
            continue
        if loop_span is not None and loop_span[0] <= offset < loop_span[1]:
            found.append(load)
        elif offset >= start and (cut is None or offset < cut):
            found.append(load)
    return found


def _other_branches(
    facts: ModuleFacts, func: cst.FunctionDef, statement: cst.CSTNode
) -> list[tuple[int, int]]:
    """The spans of the `else`/`elif` branches of the `if` statements `statement` sits in the
    body of, outside every loop around it: code there never runs after it (inside a loop, a
    later pass may take the other branch)."""
    spans = []
    child, current = statement, facts.parents.get(statement)
    while current is not None and current is not func:
        if isinstance(current, (cst.For, cst.While)):
            spans.clear()  # the branches inside this loop may run after it
        elif isinstance(current, cst.If) and child is current.body and current.orelse is not None:
            spans.append(facts.span(current.orelse))
        child, current = current, facts.parents.get(current)
    return spans


def _first_later_rebinding(
    facts: ModuleFacts, flow: FunctionFlow, name: str, statement: cst.CSTNode
) -> int | None:
    """The end offset of the first plain rebinding of `name` after `statement` in its block or,
    when its block has none, after the compound statement holding that block, and so on out
    to the function (outside loops, every path from `statement` reaches it or leaves the
    function). Loads inside the rebinding's own value still see the old value."""
    node: cst.CSTNode | None = statement
    while node is not None and node is not flow.func:
        block = facts.parents.get(node)
        if isinstance(block, (cst.IndentedBlock, cst.Module)):
            siblings = list(block.body)
            index = next(i for i, s in enumerate(siblings) if s is node)
            for later in siblings[index + 1 :]:
                if simple_assignment(later, name) is not None:
                    return facts.span(later)[1]
        node = block
    return None


def _outermost_loop(
    facts: ModuleFacts, func: cst.FunctionDef, node: cst.CSTNode
) -> cst.CSTNode | None:
    loop = None
    current = facts.parents.get(node)
    while current is not None and current is not func:
        if isinstance(current, (cst.For, cst.While)):
            loop = current
        current = facts.parents.get(current)
    return loop


def bound_around(facts: ModuleFacts, node: cst.CSTNode, statement: cst.CSTNode | None) -> set[str]:
    """Names that comprehensions, lambdas and `:=` between node and its statement bind: there
    a name may mean something other than what the statement's block binds it to. Errs on the
    safe side: every name of a comprehension's `for ... in ... if ...` clauses counts."""
    bound: set[str] = set()
    current = facts.parents.get(node)
    while current is not None and current is not statement:
        if isinstance(current, cst.CompFor):
            bound |= {n.value for n in walk(current.target) if isinstance(n, cst.Name)}
        elif isinstance(current, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            bound |= {n.value for n in walk(current.for_in) if isinstance(n, cst.Name)}
        elif isinstance(current, cst.Lambda):
            bound |= {p.name.value for p in current.params.params}
        current = facts.parents.get(current)
    if statement is not None:
        bound |= {n.target.value for n in walk(statement)
                  if isinstance(n, cst.NamedExpr) and isinstance(n.target, cst.Name)}
    return bound
