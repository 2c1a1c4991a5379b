"""Ruff's full format: the header line, the source under a row-number gutter with the span
underlined, why the tensor may be broadcast, the fix, and (with show_fixes) its diff."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Mapping, Sequence

from stridelint.findings import Applicability
from stridelint.output.concise import header
from stridelint.output.fix_diff import diff_lines, source_lines
from stridelint.output.style import BLUE_BOLD, BOLD, RED_BOLD, paint

if TYPE_CHECKING:
    from stridelint.findings import Finding, Fix
    from stridelint.output import CheckedFile, RenderOptions
    from stridelint.rules.base import Rule

TAB_WIDTH = 4  # how tabs are shown; the caret must sit under what the terminal displays
MAX_SPAN_ROWS = 3
_FIX_NOTE = {
    Applicability.SAFE: "",
    Applicability.UNSAFE: " (unsafe fix)",
    Applicability.DISPLAY: " (display-only fix)",
}


def _fix_note(fix: Fix) -> str:
    """How safe the fix is, unless its message already says so (`... (unsafe: why)`)."""
    note = _FIX_NOTE[fix.applicability]
    if note and fix.applicability.value in fix.message.lower():
        return ""
    return note


def _cell_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _layout(line: str) -> tuple[str, list[int]]:
    """The line as a terminal shows it (tabs expanded), and the cell each character starts at.

    Columns count characters, but a tab or a wide character takes more than one cell.
    """
    shown: list[str] = []
    cells = [0]
    for char in line:
        cell = cells[-1]
        if char == "\t":
            width = TAB_WIDTH - cell % TAB_WIDTH
            shown.append(" " * width)
        else:
            width = _cell_width(char)
            shown.append(char)
        cells.append(cell + width)
    return "".join(shown), cells


def _snippet(lines: list[str], finding: Finding, color: bool) -> tuple[list[str], int]:
    """The span's rows under a gutter, the first one underlined; also the gutter width."""
    first = finding.start.row
    last = finding.end.row
    if last > first and finding.end.column == 1:
        last -= 1  # the span stops at a line break: the next row holds none of it
    shown_last = min(last, first + MAX_SPAN_ROWS - 1)
    width = len(str(shown_last))

    def row(label: object, text: str) -> str:
        gutter = paint(f"{label!s:>{width}} |", BLUE_BOLD, color)
        return f"{gutter} {text}" if text else gutter

    def line_at(number: int) -> str:
        return lines[number - 1] if 0 < number <= len(lines) else ""

    shown, cells = _layout(line_at(first))
    start = cells[min(finding.start.column - 1, len(cells) - 1)]
    if last == first:
        end = cells[min(finding.end.column - 1, len(cells) - 1)]
    else:
        end = cells[-1]  # underline the first row to its end
    underline = paint("^" * max(1, end - start) + " " + finding.code, RED_BOLD, color)

    out = [row("", ""), row(first, shown), row("", " " * start + underline)]
    for number in range(first + 1, shown_last + 1):
        out.append(row(number, _layout(line_at(number))[0]))
    if last > shown_last:
        out.append(row("", "..."))
    out.append(row("", ""))
    return out, width


def _block(
    path: str, source: str, lines: list[str], finding: Finding, options: RenderOptions
) -> str:
    out = [header(path, finding, options)]
    snippet, width = _snippet(lines, finding, options.color)
    out += snippet
    indent = " " * (width + 1)
    for evidence in finding.evidence:
        where = f"{path}:{evidence.position.row}:{evidence.position.column}"
        out.append(f"{indent}= {paint('why', BOLD, options.color)}: {evidence.message} ({where})")
    if finding.fix is not None:
        help_text = f"{finding.fix.message}{_fix_note(finding.fix)}"
        out.append(f"{indent}= {paint('help', BOLD, options.color)}: {help_text}")
        if options.show_fixes:
            out += ["", *diff_lines(path, source, finding.fix, options.color)]
    return "\n".join(out) + "\n"


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    blocks = []
    for report, findings in files:
        # Findings of a fixed file point into its final text, which is report.source.
        lines = source_lines(report.source)
        blocks += [_block(report.path, report.source, lines, f, options) for f in findings]
    return "\n".join(blocks)
