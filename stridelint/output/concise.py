"""Ruff's concise format: one `path:row:col: CODE [*] message` line per finding."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:
    from stridelint.findings import Finding
    from stridelint.output import CheckedFile, RenderOptions
    from stridelint.rules.base import Rule

BOLD = "1"
RED_BOLD = "1;31"
GREEN = "32"
CYAN = "36"
BLUE_BOLD = "1;34"


def paint(text: str, style: str, color: bool) -> str:
    """Wrap `text` in an ANSI style only when colour is on, so plain output stays plain."""
    return f"\x1b[{style}m{text}\x1b[0m" if color else text


def fix_marker(finding: Finding, options: RenderOptions) -> str:
    """`[*] ` when `--fix` (with the current `--unsafe-fixes`) would apply the finding's fix."""
    if finding.fix is not None and finding.fix.applies_under(options.unsafe_fixes):
        return paint("[*]", CYAN, options.color) + " "
    return ""


def header(path: str, finding: Finding, options: RenderOptions) -> str:
    """The line every human format starts a finding with."""
    return (
        f"{paint(path, BOLD, options.color)}:{finding.start.row}:{finding.start.column}: "
        f"{paint(finding.code, RED_BOLD, options.color)} "
        f"{fix_marker(finding, options)}{finding.message}"
    )


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    return "".join(
        header(report.path, finding, options) + "\n"
        for report, findings in files
        for finding in findings
    )
