"""Where LibCST nodes are in the file, computed for the statements asked about instead of
for the whole module.

LibCST's PositionProvider generates the code of the whole module while tracking lines and
columns per node: the largest cost of a file with a broadcast source (more than parsing
it), although findings and evidence ask about nodes of a function or two. Here a node's
position costs the tracked generation of its *unit* alone (a module-level statement, or a
statement directly in a module-level class body). A unit starts at a line start, so where it
starts is found in the file's text: its code, less the blank lines it opens with (they may
stand for code the screen blanked out), occurs there once, verbatim. The unit's ranges,
tracked from line 1, are then moved down to that line. A node outside every unit (a class
header, the module), a unit whose code does not occur exactly once, or no text to search,
falls back to LibCST's whole-module pass. The ranges are LibCST's own
(tests/analysis/test_positions.py compares them on real code).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from stridelint.analysis.tree import parent_map

_NEWLINE = re.compile(r"\r\n?|\n")  # as LibCST counts lines, token by token
_BLANK_LINE = re.compile(r"[ \t\f]*(?:\r\n?|\n)")


class Positions:
    """`positions[node]`: the node's CodeRange, as PositionProvider gives it.

    `text`: the file's text the module was parsed from, or a text with the same positions
    (the screen's reduction of it, whose kept code is the file's own); `parents`: gives the
    child -> parent map of the module's nodes when first needed."""

    def __init__(
        self,
        module: cst.Module,
        text: str | None = None,
        parents: Callable[[], Mapping[cst.CSTNode, cst.CSTNode]] | None = None,
    ) -> None:
        self._module = module
        self._text = text
        self._parents = parents
        self._ranges: dict[cst.CSTNode, CodeRange] = {}
        self._tracked: set[cst.CSTNode] = set()
        self._whole: object = None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self._ranges.get(node)
        if found is not None:
            return found
        if self._whole is None:
            unit = self._unit_of(node) if self._text is not None else None
            if unit is not None and unit not in self._tracked:
                self._tracked.add(unit)
                if self._track(unit) and node in self._ranges:
                    return self._ranges[node]
            wrapper = MetadataWrapper(self._module, unsafe_skip_copy=True)
            self._whole = PositionProvider()._gen(wrapper)
        return self._whole[node]  # type: ignore[index]

    def _parent_map(self) -> Mapping[cst.CSTNode, cst.CSTNode]:
        if self._parents is None:
            parents = parent_map(self._module)
            self._parents = lambda: parents
        return self._parents()

    def _unit_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The module-level statement, or statement of a module-level class body, that holds
        node (a class's header is in the class statement); None for the module itself and the
        blank lines and comments of a module's or class body's header and footer."""
        parents = self._parent_map()
        module = self._module
        current = node
        while True:
            parent = parents.get(current)
            if parent is None:
                return None
            if parent is module:
                return current if isinstance(current, cst.BaseStatement) else None
            if (
                isinstance(parent, cst.IndentedBlock)
                and isinstance(parents.get(parent), cst.ClassDef)
                and parents.get(parents[parent]) is module
            ):
                return current if isinstance(current, cst.BaseStatement) else None
            current = parent

    def _track(self, unit: cst.CSTNode) -> bool:
        """Track the unit's code generation from line 1 and move its ranges to where its code
        is in the text; False when that place is not certain."""
        module = self._module
        parent = self._parent_map()[unit]
        indent: list[str] = []
        if isinstance(parent, cst.IndentedBlock):
            indent = [parent.indent if parent.indent is not None else module.default_indent]
        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            provider=provider,
        )
        state.line, state.column, state.indent_tokens = 1, 0, indent
        unit._codegen(state)
        start = self._start_line("".join(state.tokens))
        if start is None:
            return False
        shift = start - 1
        for tracked, code_range in provider._computed.items():
            self._ranges[tracked] = CodeRange(
                CodePosition(code_range.start.line + shift, code_range.start.column),
                CodePosition(code_range.end.line + shift, code_range.end.column),
            )
        return True

    def _start_line(self, code: str) -> int | None:
        """The line a unit's code starts on: its code after the blank lines it opens with
        occurs once in the text, at a line start; None otherwise."""
        text = self._text
        assert text is not None
        skipped, blank_lines = 0, 0
        while (blank := _BLANK_LINE.match(code, skipped)) is not None:
            skipped, blank_lines = blank.end(), blank_lines + 1
        rest = code[skipped:]
        at = text.find(rest) if rest else -1
        if at < 0 or text.find(rest, at + 1) >= 0:
            return None
        line, column = _advance(1, 0, [text[:at]])
        if column != 0 or line <= blank_lines:
            return None
        return line - blank_lines


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
