"""Ruff's concise format: one `path:row:col: CODE [*] message` line per finding (with
`--show-fixes`, followed by the fix as a diff)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from stridelint.output.fix_diff import diff_lines
from stridelint.output.style import BOLD, CYAN, RED_BOLD, paint

if TYPE_CHECKING:
    from stridelint.findings import Finding
    from stridelint.output import CheckedFile, RenderOptions
    from stridelint.rules.base import Rule


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


def _entry(path: str, source: str, finding: Finding, options: RenderOptions) -> str:
    line = header(path, finding, options) + "\n"
    if not options.show_fixes or finding.fix is None:
        return line
    return line + "\n".join(diff_lines(path, source, finding.fix, options.color)) + "\n\n"


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    return "".join(
        _entry(report.path, report.source, finding, options)
        for report, findings in files
        for finding in findings
    )
