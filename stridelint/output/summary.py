"""The closing lines a person reads, in Ruff's wording."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from stridelint.findings import Applicability
from stridelint.output.style import CYAN, paint

if TYPE_CHECKING:
    from stridelint.findings import FileReport, Finding
    from stridelint.output import RenderOptions


def checked_findings(reports: Sequence[FileReport]) -> list[Finding]:
    # A file that could not be checked is reported by the CLI, not counted here.
    return [f for report in reports if report.error is None for f in report.findings]


def applicable(finding: Finding, options: RenderOptions) -> bool:
    return finding.fix is not None and finding.fix.applies_under(options.unsafe_fixes)


def plural(count: int, noun: str, suffix: str = "s") -> str:
    return f"{count} {noun}{'' if count == 1 else suffix}"


def render_summary(reports: Sequence[FileReport], options: RenderOptions, *, fixing: bool) -> str:
    """`Found N errors.` or `All checks passed!`, then how many `--fix` would fix.

    A file that could not be (fully) checked never lets the run say that all checks passed.
    """
    findings = checked_findings(reports)
    remaining = len(findings)
    fixed = sum(r.fixed_count for r in reports if r.error is None) if fixing else 0
    unchecked = sum(1 for r in reports if r.error is not None or r.internal_errors)
    if fixed:
        total = plural(fixed + remaining, "error")
        lines = [f"Found {total} ({fixed} fixed, {remaining} remaining)."]
    elif remaining:
        lines = [f"Found {plural(remaining, 'error')}."]
    elif unchecked:
        lines = []
    else:
        lines = ["All checks passed!"]
    if unchecked:  # why is on standard error, one line per file
        lines.append(f"{plural(unchecked, 'file')} could not be checked.")

    fixable = sum(applicable(f, options) for f in findings)
    hidden = 0
    if not options.unsafe_fixes:
        hidden = sum(
            f.fix is not None and f.fix.applicability is Applicability.UNSAFE for f in findings
        )
    hidden_fixes = plural(hidden, "hidden fix", "es")
    hint = f"({hidden_fixes} can be enabled with the `--unsafe-fixes` option)"
    marker = paint("[*]", CYAN, options.color)
    if fixable and hidden:
        lines.append(f"{marker} {fixable} fixable with the `--fix` option {hint}.")
    elif fixable:
        lines.append(f"{marker} {fixable} fixable with the `--fix` option.")
    elif hidden:
        lines.append(f"No fixes available {hint}.")
    return "\n".join(lines) + "\n"


def render_fix_only_summary(reports: Sequence[FileReport]) -> str:
    """`--fix-only` reports what it fixed, never what remains."""
    fixed = sum(r.fixed_count for r in reports if r.error is None)
    return f"Fixed {plural(fixed, 'error')}.\n" if fixed else "No errors fixed.\n"
