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
from collections.abc import Mapping
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
    """Child -> parent for every node under `root`."""
    return _parents(root, frozenset())


# Whitespace, comments and punctuation: more than half of a module's nodes, and no analysis
# asks for their parents (ParentMap leaves them out until something does).
_LAYOUT = frozenset({
    cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.EmptyLine,
    cst.Comment, cst.Newline, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual,
    cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
    cst.LeftCurlyBrace, cst.RightCurlyBrace,
})  # fmt: skip


class ParentMap(Mapping[cst.CSTNode, cst.CSTNode]):
    """parent_map(root) as a mapping, built without the _LAYOUT nodes and what is below them:
    a module's map answers some fifty questions (on transformers' models), all about code.
    A question about a node it left out (or a look at every key) builds the whole map once
    and answers from it, so every answer is parent_map's."""

    def __init__(self, root: cst.CSTNode) -> None:
        self._root = root
        self._code = _parents(root, _LAYOUT)
        self._whole: dict[cst.CSTNode, cst.CSTNode] | None = None

    def _every(self) -> dict[cst.CSTNode, cst.CSTNode]:
        if self._whole is None:
            self._whole = parent_map(self._root)
        return self._whole

    def get(self, node, default=None):  # type: ignore[override]
        found = self._code.get(node)
        if found is not None:
            return found
        if node is None or node is self._root:  # never keys: no need for the whole map
            return default
        return self._every().get(node, default)

    def __getitem__(self, node: cst.CSTNode) -> cst.CSTNode:
        found = self._code.get(node)
        return found if found is not None else self._every()[node]

    def __contains__(self, node: object) -> bool:
        if node in self._code:
            return True
        return node is not None and node is not self._root and node in self._every()

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())


def _parents(root: cst.CSTNode, skip: frozenset[type]) -> dict[cst.CSTNode, cst.CSTNode]:
    """Child -> parent under `root`, leaving out nodes of the `skip` classes and what is below
    them. `children` inlined: the map visits every node of a module, and the calls per node
    were half its cost."""
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
                if type(child) not in skip:
                    parents[child] = node
                    push(child)
            continue
        for name in order:  # type: ignore[attr-defined]
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for item in value:
                    item_kind = type(item)
                    if item_kind in skip:
                        continue
                    known = _IS_NODE.get(item_kind)
                    if known or known is None and _is_node(item_kind):
                        parents[item] = node
                        push(item)
            elif kind not in skip:
                known = _IS_NODE.get(kind)
                if known or known is None and _is_node(kind):
                    parents[value] = node
                    push(value)
    return parents


def descendants(node: cst.CSTNode, kind: type[Node]) -> Iterator[Node]:
    """The nodes of one kind below (and including) node, in source order. A class with no
    subclasses (every concrete LibCST node) is matched by `type(n) is kind`: isinstance on a
    LibCST class goes through ABCMeta, per node."""
    if kind.__subclasses__():
        return (n for n in walk(node) if isinstance(n, kind))
    return (n for n in walk(node) if type(n) is kind)  # type: ignore[misc]


# The field that holds what a binding node binds. Dispatch is on the exact class: LibCST's
# node classes have no subclasses, and isinstance on them goes through ABCMeta (per node).
_TARGET_FIELD = {
    cst.AssignTarget: "target", cst.AugAssign: "target", cst.AnnAssign: "target",
    cst.NamedExpr: "target", cst.For: "target", cst.CompFor: "target", cst.Del: "target",
    cst.AsName: "name",
}  # fmt: skip
_NAME_TARGETS = (cst.Name, cst.Tuple, cst.List, cst.StarredElement)


def assignment_targets(assign: cst.Assign) -> list[cst.BaseExpression]:
    """What an assignment binds, one level of tuple or list unpacked: `a, self.b = ...` gives
    `a` and `self.b`; `x = y = ...` gives both."""
    found: list[cst.BaseExpression] = []
    for target in assign.targets:
        if isinstance(target.target, (cst.Tuple, cst.List)):
            found.extend(element.value for element in target.target.elements)
        else:
            found.append(target.target)
    return found


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
