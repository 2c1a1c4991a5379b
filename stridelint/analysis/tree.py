"""Small walks over LibCST trees that several modules need: every node below one, and the
names a statement may bind. (libcst.matchers would read better but costs 0.45 s to import,
a third of a pre-commit run on one candidate file.)

`children` is LibCST's `node.children` without its cost: LibCST collects a node's children
by rebuilding the node through a visitor (a new node, validated, per call), which was the
largest single cost of the analysis. Here they are read straight from the node's fields, in
the order LibCST's own `_visit_and_replace_children` visits them (read once per node class
from that method: the field names it passes to `visit_*`), so the list is the same, in the
same (source) order; a class whose order cannot be read, or whose first node disagrees
with LibCST, keeps LibCST's way (tests/analysis/test_tree.py compares both on real code).
"""

from __future__ import annotations

import inspect
import re
from typing import Iterator, Sequence, TypeVar

import libcst as cst

Node = TypeVar("Node", bound=cst.CSTNode)

_VISITED_FIELD = re.compile(r'\bvisit_\w+\(\s*self\s*,\s*"(\w+)"')
_LIBCST = object()  # the class's order could not be read: ask LibCST
_FIELD_ORDER: dict[type, object] = {}  # node class -> tuple of field names, or _LIBCST
_IS_NODE: dict[type, bool] = {}  # CSTNode is an ABC: isinstance on it is slow


def children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """`node.children`: its direct child nodes, in source order."""
    order = _FIELD_ORDER.get(type(node))
    if order is None:
        order = _learn_order(node)
    if order is _LIBCST:
        return node.children
    found: list[cst.CSTNode] = []
    for name in order:  # type: ignore[attr-defined]
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            found.extend(item for item in value if _is_node(type(item)))
        elif _is_node(kind):
            found.append(value)
    return found


def _is_node(kind: type) -> bool:
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


def _learn_order(node: cst.CSTNode) -> object:
    """The fields `_visit_and_replace_children` visits, in its order, checked on this node."""
    kind = type(node)
    _FIELD_ORDER[kind] = _LIBCST  # while checking, and for good if the check fails
    try:
        source = inspect.getsource(kind._visit_and_replace_children)
    except (OSError, TypeError):
        return _LIBCST
    order = tuple(dict.fromkeys(_VISITED_FIELD.findall(source)))
    if not all(hasattr(node, name) for name in order):
        return _LIBCST
    _FIELD_ORDER[kind] = order
    expected = node.children
    if len(children(node)) != len(expected) or any(
        a is not b for a, b in zip(children(node), expected)
    ):
        _FIELD_ORDER[kind] = _LIBCST
    return _FIELD_ORDER[kind]


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """node and everything below it, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def parent_map(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """Child -> parent for every node under `root`. `children` inlined: the map visits every
    node of a module, and the calls per node were half its cost."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        order = _FIELD_ORDER.get(type(node))
        if order is None:
            order = _learn_order(node)
        if order is _LIBCST:
            for child in node.children:
                parents[child] = node
                push(child)
            continue
        for name in order:  # type: ignore[attr-defined]
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for item in value:
                    known = _IS_NODE.get(type(item))
                    if known or known is None and _is_node(type(item)):
                        parents[item] = node
                        push(item)
            else:
                known = _IS_NODE.get(kind)
                if known or known is None and _is_node(kind):
                    parents[value] = node
                    push(value)
    return parents


def descendants(node: cst.CSTNode, kind: type[Node]) -> Iterator[Node]:
    """The nodes of one kind below (and including) node, in source order."""
    return (n for n in walk(node) if isinstance(n, kind))


# The field that holds what a binding node binds. Dispatch is on the exact class: LibCST's
# node classes have no subclasses, and isinstance on them goes through ABCMeta (per node).
_TARGET_FIELD = {
    cst.AssignTarget: "target", cst.AugAssign: "target", cst.AnnAssign: "target",
    cst.NamedExpr: "target", cst.For: "target", cst.CompFor: "target", cst.Del: "target",
    cst.AsName: "name",
}  # fmt: skip
_NAME_TARGETS = (cst.Name, cst.Tuple, cst.List, cst.StarredElement)


def assigned_names(statement: cst.CSTNode) -> set[str]:
    """Names a statement (and anything nested in it) may bind."""
    names: set[str] = set()
    for node in walk(statement):
        kind = type(node)
        field = _TARGET_FIELD.get(kind)
        if field is not None:
            target = getattr(node, field)
            if isinstance(target, _NAME_TARGETS):
                names |= {n.value for n in descendants(target, cst.Name)}
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            names.add(node.name.value)
        elif kind is cst.Global or kind is cst.Nonlocal:
            names |= {item.name.value for item in node.names}
    return names
