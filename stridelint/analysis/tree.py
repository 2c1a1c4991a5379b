"""Small walks over LibCST trees that several modules need: every node below one, and the
names a statement may bind. (libcst.matchers would read better but costs 0.45 s to import,
a third of a pre-commit run on one candidate file.)"""

from __future__ import annotations

from typing import Iterator, TypeVar

import libcst as cst

Node = TypeVar("Node", bound=cst.CSTNode)


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """node and everything below it, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def descendants(node: cst.CSTNode, kind: type[Node]) -> Iterator[Node]:
    """The nodes of one kind below (and including) node, in source order."""
    return (n for n in walk(node) if isinstance(n, kind))


def assigned_names(statement: cst.CSTNode) -> set[str]:
    """Names a statement (and anything nested in it) may bind."""
    names: set[str] = set()
    for node in walk(statement):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.AssignTarget):
            targets = [node.target]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.CompFor)):
            targets = [node.target]
        elif isinstance(node, cst.AsName):
            targets = [node.name]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        for target in targets:
            if isinstance(target, (cst.Name, cst.Tuple, cst.List, cst.StarredElement)):
                names |= {n.value for n in descendants(target, cst.Name)}
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.add(node.name.value)
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            names |= {item.name.value for item in node.names}
    return names
