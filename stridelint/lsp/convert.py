"""stridelint's positions, findings and edits in the Language Server Protocol's terms.

Our rows and columns are 1-based and count characters (code points); LSP's are 0-based and
count the units of the position encoding the client and server agreed on (UTF-16 unless the
client offers another). Lines are split as stridelint splits them (`\\n`, `\\r\\n`, `\\r`), so a
form feed or a line separator inside a line cannot shift a row.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Mapping

from lsprotocol import types

from stridelint.findings import Applicability

if TYPE_CHECKING:
    from pygls.workspace.position_codec import PositionCodec

    from stridelint.findings import Edit, Finding, Position
    from stridelint.rules.base import Rule

SOURCE = "stridelint"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


class Positions:
    """Converts between stridelint positions or character offsets and LSP positions in one text."""

    def __init__(self, text: str, codec: PositionCodec) -> None:
        self.text = text
        self.codec = codec
        # Every line keeps its ending; a text ending in a line break has an empty last line.
        self.lines = [m.group() for m in _LINE.finditer(text)][:-1] or [""]
        if text.endswith(("\n", "\r")):
            self.lines.append("")
        self.starts = []
        offset = 0
        for line in self.lines:
            self.starts.append(offset)
            offset += len(line)

    def at(self, position: Position) -> types.Position:
        row = min(max(position.row, 1), len(self.lines)) - 1
        return self._lsp(row, position.column - 1)

    def at_offset(self, offset: int) -> types.Position:
        row = bisect.bisect_right(self.starts, offset) - 1
        return self._lsp(row, offset - self.starts[row])

    def range(self, start: Position, end: Position) -> types.Range:
        return types.Range(start=self.at(start), end=self.at(end))

    def _lsp(self, row: int, column: int) -> types.Position:
        line = self.lines[row].rstrip("\r\n")
        column = min(max(column, 0), len(line))
        return types.Position(line=row, character=self.codec.client_num_units(line[:column]))


def diagnostic(finding: Finding, uri: str, positions: Positions,
               rules: Mapping[str, type[Rule]]) -> types.Diagnostic:
    rule = rules.get(finding.code)
    severity = types.DiagnosticSeverity.Error
    if rule is not None and rule.severity == "warning":
        severity = types.DiagnosticSeverity.Warning
    return types.Diagnostic(
        range=positions.range(finding.start, finding.end),
        message=finding.message,
        severity=severity,
        code=finding.code,
        code_description=None if rule is None else types.CodeDescription(href=rule.url()),
        source=SOURCE,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=positions.range(e.position, e.position)),
                message=e.message,
            )
            for e in finding.evidence
        ] or None,
        # An unused suppression is code to delete: editors grey it out.
        tags=[types.DiagnosticTag.Unnecessary] if finding.code == "SL901" else None,
        data={"fix": None if finding.fix is None else finding.fix.applicability.value},
    )


def text_edits(edits: tuple[Edit, ...], positions: Positions) -> list[types.TextEdit]:
    return [
        types.TextEdit(range=positions.range(e.start_position, e.end_position), new_text=e.content)
        for e in sorted(edits, key=lambda e: (e.start, e.end))
    ]


def replacement(old: str, new: str, positions: Positions) -> types.TextEdit:
    """One edit that turns `old` (the text `positions` describes) into `new`: the lines between
    their common prefix and common suffix."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    # Whole lines read better in an editor's preview; the widened ends are common to both.
    start, old_end, new_end = prefix, len(old) - suffix, len(new) - suffix
    while start > 0 and old[start - 1] not in "\r\n":
        start -= 1
    while old_end < len(old) and old[old_end] not in "\r\n":
        old_end, new_end = old_end + 1, new_end + 1
    return types.TextEdit(
        range=types.Range(start=positions.at_offset(start), end=positions.at_offset(old_end)),
        new_text=new[start:new_end],
    )


def applies(applicability: Applicability) -> bool:
    """Whether a fix may be offered as a quick fix at all (display-only ones never are)."""
    return applicability in (Applicability.SAFE, Applicability.UNSAFE)
