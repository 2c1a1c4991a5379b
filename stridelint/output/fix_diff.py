"""A fix shown as a unified diff of the file, for `--show-fixes` in the concise and full formats."""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from stridelint.output.style import BOLD, CYAN, GREEN, RED_BOLD, paint

if TYPE_CHECKING:
    from stridelint.findings import Fix

# The line breaks Python (and so LibCST's row numbers) recognises; str.splitlines knows more.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()  # a final line break ends the last line, it does not start another
    return lines


def _applied(source: str, fix: Fix) -> str:
    """The source with the fix's edits made; they never overlap, so go from the end."""
    for edit in sorted(fix.edits, key=lambda e: e.start, reverse=True):
        source = source[: edit.start] + edit.content + source[edit.end :]
    return source


def diff_lines(path: str, source: str, fix: Fix, color: bool) -> list[str]:
    """The diff between `source` and `source` with `fix` applied, one string per line."""
    diff = difflib.unified_diff(
        source_lines(source), source_lines(_applied(source, fix)), path, path, lineterm=""
    )
    styles = {"---": BOLD, "+++": BOLD, "@@": CYAN, "-": RED_BOLD, "+": GREEN}
    out = []
    for line in diff:
        style = next((s for prefix, s in styles.items() if line.startswith(prefix)), None)
        out.append(paint(line, style, color) if style else line)
    return out
