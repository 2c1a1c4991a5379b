"""Resolve names through the module's imports, so `import torch as t; t.where` is `torch.where`.

A table built from the module's import statements answers what LibCST's
QualifiedNameProvider would for the names rules care about, at a fraction of its cost
(no scope analysis): resolving through imports, never by spelling alone (STYLE.md).
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as a string, or None when the expression is not a plain dotted name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _module_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


def iter_statements(node: cst.CSTNode) -> Iterator[cst.BaseStatement]:
    """Every statement below node, nested bodies included, without entering expressions
    (a fraction of the cost of a full tree walk)."""
    body = getattr(node, "body", None)
    if isinstance(body, cst.IndentedBlock):
        body = body.body
    if not isinstance(body, (list, tuple)):
        return
    for statement in body:
        if isinstance(statement, cst.BaseStatement):
            yield statement
            if isinstance(statement, cst.BaseCompoundStatement):
                yield from _nested(statement)


def _nested(statement: cst.BaseCompoundStatement) -> Iterator[cst.BaseStatement]:
    yield from iter_statements(statement)
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.If):  # elif
        yield orelse
        yield from _nested(orelse)
    elif orelse is not None:
        yield from iter_statements(orelse)
    finalbody = getattr(statement, "finalbody", None)
    if finalbody is not None:
        yield from iter_statements(finalbody)
    for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
        yield from iter_statements(part)


class ImportTable:
    """Local name -> fully qualified name, from top-level and nested imports alike."""

    def __init__(self, module: cst.Module) -> None:
        self.aliases: dict[str, str] = {}
        self.imported: set[str] = set()  # every name an import binds, relative imports too
        collector = _ImportCollector(self.aliases, self.imported)
        for statement in iter_statements(module):
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        small.visit(collector)

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """The qualified name of a dotted expression, if its root is an imported name."""
        name = dotted(node)
        if name is None:
            return None
        root, _, rest = name.partition(".")
        target = self.aliases.get(root)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def local_name_for(self, qualified: str) -> str | None:
        """How the module spells an imported module (e.g. `th` for `torch`), if it imports it."""
        for local, target in self.aliases.items():
            if target == qualified:
                return local
        return None


class _ImportCollector(cst.CSTVisitor):
    def __init__(self, aliases: dict[str, str], imported: set[str]) -> None:
        self.aliases = aliases
        self.imported = imported

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            full = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.aliases[alias.asname.name.value] = full
            else:
                root = full.split(".")[0]
                self.aliases[root] = root
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            return False
        base = _module_name(node.module) if node.module is not None else ""
        for alias in node.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.imported.add(local)
            if not node.relative and base:
                self.aliases[local] = f"{base}.{name}"
        return False
