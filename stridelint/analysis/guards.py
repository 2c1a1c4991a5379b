"""Where an expression runs inside its statement: whether the statement always evaluates it
exactly once, what the statement may evaluate before it, and whether a `:=` may stand there.

A fix that moves work to just before a statement (or binds a name inside an expression)
asks these questions; Python's evaluation order is the reference: an assignment evaluates its
value before its targets, a conditional expression its test before a branch, `and`/`or`
their right side only on some values, a chained comparison its later operands only when the
earlier ones hold, a comprehension its element once per item, a lambda its body when called,
`assert` only when not optimized away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst


if TYPE_CHECKING:
    from stridelint.analysis.scopes import Scopes

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_INERT_LITERALS = (
    cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis,
)  # fmt: skip
_CONTAINERS = (cst.Tuple, cst.List)


def condition(parents: dict, node: cst.CSTNode, statement: cst.CSTNode) -> str | None:
    """Why `node` may run zero times or more than once when `statement` runs once (None
    when it runs exactly once, exceptions aside)."""
    child = node
    while child is not statement:
        parent = parents.get(child)
        if parent is None:
            return "it is not inside its statement"
        reason = _conditional_edge(parents, parent, child)
        if reason is not None:
            return reason
        child = parent
    if isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, cst.Assert) for small in statement.body
    ):
        return "an `assert` runs only when Python is not run with -O"
    if isinstance(statement, cst.While):
        return "a `while` test runs once per iteration"
    if isinstance(statement, cst.If) and isinstance(parents.get(statement), cst.If):
        return "an `elif` test runs only when the tests before it failed"
    return None


def _conditional_edge(parents: dict, parent: cst.CSTNode, child: cst.CSTNode) -> str | None:
    if isinstance(parent, cst.If) and child is parent.orelse:
        return "an `elif` test runs only when the tests before it failed"
    if isinstance(parent, cst.IfExp) and child is not parent.test:
        return "it is a branch of a conditional expression"
    if isinstance(parent, cst.BooleanOperation) and child is parent.right:
        return "`and`/`or` evaluate their right side only on some values"
    if isinstance(parent, cst.Comparison) and child is not parent.left:
        if parent.comparisons and child is not parent.comparisons[0]:
            return "a chained comparison evaluates later operands only when earlier ones hold"
    if isinstance(parent, cst.Lambda) and child is parent.body:
        return "a lambda's body runs when the lambda is called"
    if isinstance(parent, _COMPREHENSIONS) and child is not parent.for_in:
        return "a comprehension evaluates its element once per item"
    if isinstance(parent, cst.CompFor) and child is not parent.iter:
        return "a comprehension evaluates its clauses once per item"
    if isinstance(parent, cst.CompFor) and isinstance(parents.get(parent), cst.CompFor):
        return "a nested comprehension clause runs once per outer item"
    if isinstance(parent, cst.CompIf):
        return "a comprehension condition runs once per item"
    return None


def runs_later(parents: dict, node: cst.CSTNode, statement: cst.CSTNode) -> str | None:
    """Why `node` may run after its statement has finished (None: it runs during it): a
    lambda's body runs when called, a generator expression's element when consumed, and
    both then read the names' values of that time."""
    child = node
    while child is not statement:
        parent = parents.get(child)
        if parent is None:
            return None
        if isinstance(parent, cst.Lambda) and child is parent.body:
            return "a lambda's body runs when the lambda is called"
        if isinstance(parent, cst.GeneratorExp) and child is not parent.for_in:
            return "a generator expression runs its element when consumed"
        if isinstance(parent, cst.CompFor) and child is not parent.iter:
            grand = parent
            while isinstance(parents.get(grand), cst.CompFor):
                grand = parents.get(grand)
            if isinstance(parents.get(grand), cst.GeneratorExp):
                return "a generator expression runs its clauses when consumed"
        child = parent
    return None


def evaluated_before(
    parents: dict, node: cst.CSTNode, statement: cst.CSTNode
) -> list[cst.CSTNode] | None:
    """Expressions of `statement` that may be evaluated before `node` (an over-approximation:
    every earlier operand, and all of a conditional or repeated construct around `node`);
    None when Python's order there is not modelled (keyword arguments before `*args`)."""
    before: list[cst.CSTNode] = []
    child = node
    while child is not statement:
        parent = parents.get(child)
        if parent is None:
            return None
        if isinstance(parent, cst.Call) and _keyword_before_star(parent):
            return None
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and child is parent.value:
            pass  # the value runs before the targets
        elif isinstance(parent, (cst.Lambda, *_COMPREHENSIONS, cst.CompFor, cst.CompIf, cst.IfExp)):
            before.extend(c for c in parent.children if c is not child)  # runs around it
        else:
            before.extend(_earlier_children(parent, child))
        child = parent
    return before


def _earlier_children(parent: cst.CSTNode, child: cst.CSTNode) -> list[cst.CSTNode]:
    earlier = []
    for sibling in parent.children:
        if sibling is child:
            break
        earlier.append(sibling)
    return earlier


def _keyword_before_star(call: cst.Call) -> bool:
    seen_keyword = False
    for arg in call.args:
        if arg.keyword is not None or arg.star == "**":
            seen_keyword = True
        elif arg.star == "*" and seen_keyword:
            return True
    return False


def inert(scopes: Scopes, nodes: list[cst.CSTNode]) -> bool:
    """Whether evaluating the nodes has no effect and cannot raise: literals, tuples and
    lists of them, names that are surely bound where they are read, and attributes of an
    imported module (`torch.max`: reading a module's attribute has no effect)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None") or not scopes.is_load(node):
                continue
            if not scopes.definitely_bound(node):
                return False
        elif isinstance(node, cst.Attribute):
            if not _module_attribute(scopes, node):
                return False
            continue
        elif isinstance(node, (cst.Lambda, cst.BaseCompoundStatement)):
            return False
        elif isinstance(node, cst.BaseExpression) and not isinstance(
            node, (*_INERT_LITERALS, *_CONTAINERS)
        ):
            return False
        stack.extend(node.children)
    return True


def _module_attribute(scopes: Scopes, node: cst.Attribute) -> bool:
    root = node.value
    while isinstance(root, cst.Attribute):
        root = root.value
    return isinstance(root, cst.Name) and scopes.is_module_import(root)


def walrus_forbidden(parents: dict, node: cst.CSTNode, statement: cst.CSTNode) -> str | None:
    """Why an assignment expression `(name := ...)` may not replace `node` (None: it may)."""
    child = node
    while child is not statement:
        parent = parents.get(child)
        if parent is None:
            return "it is not inside its statement"
        if isinstance(parent, cst.CompFor) and child is parent.iter:
            return "Python forbids `:=` in a comprehension's iterable"
        child = parent
    return None
