"""Where LibCST nodes are in the file, computed for the statements asked about instead of
for the whole module.

LibCST's PositionProvider generates the code of the whole module while tracking lines and
columns per node: the largest cost of a file with a broadcast source (more than parsing
it), although findings and evidence ask about nodes of a function or two. Here the module's
code is generated once without tracking (about five times cheaper), noting where each *unit*
starts (a module-level statement, or a statement directly in a module-level class body),
with its indentation, and which unit each node is in; a node's position then costs the
tracked generation of its unit alone, started at that line, column and indentation. The
tracked text of a unit must equal its text in the module's; a node outside every unit (a
class header, the module) or any mismatch falls back to LibCST's whole-module pass. The
ranges are LibCST's own (tests/analysis/test_positions.py compares them on real code).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

_NEWLINE = re.compile(r"\r\n?|\n")  # as LibCST counts lines, token by token


class Positions:
    """`positions[node]`: the node's CodeRange, as PositionProvider gives it."""

    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._ranges: dict[cst.CSTNode, CodeRange] = {}
        self._units: _Units | None = None
        self._tracked: set[cst.CSTNode] = set()
        self._whole: object = None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self._ranges.get(node)
        if found is not None:
            return found
        if self._whole is None:
            if self._units is None:
                self._units = _Units(self._module)
            unit = self._units.unit_of.get(node)
            if unit is not None and unit not in self._tracked:
                self._tracked.add(unit)
                if self._track(unit) and node in self._ranges:
                    return self._ranges[node]
            wrapper = MetadataWrapper(self._module, unsafe_skip_copy=True)
            self._whole = PositionProvider()._gen(wrapper)
        return self._whole[node]  # type: ignore[index]

    def _track(self, unit: cst.CSTNode) -> bool:
        units = self._units
        assert units is not None
        line, column, indent, text = units.start[unit]
        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=self._module.default_indent,
            default_newline=self._module.default_newline,
            provider=provider,
        )
        state.line, state.column, state.indent_tokens = line, column, list(indent)
        unit._codegen(state)
        if "".join(state.tokens) != text:
            return False
        self._ranges.update(provider._computed)
        return True


class _Units:
    """One untracked code generation of the module: each unit's start (line, column, indent
    tokens) and text, and the unit of every node inside one."""

    def __init__(self, module: cst.Module) -> None:
        units = set(_units(module))
        state = _Indexing(module.default_indent, module.default_newline)
        state.units = units
        module._codegen(state)
        self.unit_of = state.unit_of
        self.start: dict[cst.CSTNode, tuple[int, int, tuple[str, ...], str]] = {}
        line, column, done = 1, 0, 0
        for unit, (first, last, indent) in state.spans.items():
            line, column = _advance(line, column, state.tokens[done:first])
            done = first
            self.start[unit] = (line, column, indent, "".join(state.tokens[first:last]))


def _units(module: cst.Module) -> Iterable[cst.CSTNode]:
    for statement in module.body:
        body = statement.body if isinstance(statement, cst.ClassDef) else None
        if isinstance(body, cst.IndentedBlock):
            yield from body.body
        else:
            yield statement


def _advance(line: int, column: int, tokens: list[str]) -> tuple[int, int]:
    """Line and column after `tokens`, counted as LibCST's tracking state counts them."""
    chunk = "".join(tokens)
    if "\r" not in chunk:
        newlines = chunk.count("\n")
        if not newlines:
            return line, column + len(chunk)
        return line + newlines, len(chunk) - chunk.rfind("\n") - 1
    for token in tokens:  # a "\r" and a "\n" in two tokens are two lines to LibCST
        segments = _NEWLINE.split(token)
        if len(segments) == 1:
            column += len(token)
        else:
            line += len(segments) - 1
            column = len(segments[-1])
    return line, column


class _Indexing(CodegenState):
    """Plain code generation that notes the token span of each unit and each node's unit."""

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent, default_newline)
        self.units: set[cst.CSTNode] = set()
        self.current: cst.CSTNode | None = None
        self.unit_of: dict[cst.CSTNode, cst.CSTNode] = {}
        self.spans: dict[cst.CSTNode, list] = {}

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.current is None and node in self.units:
            self.current = node
            self.spans[node] = [len(self.tokens), None, tuple(self.indent_tokens)]
        if self.current is not None:
            self.unit_of[node] = self.current

    def after_codegen(self, node: cst.CSTNode) -> None:
        if node is self.current:
            self.spans[node][1] = len(self.tokens)
            self.current = None
