"""The closing lines a person reads (Ruff's wording) and the `--statistics` table."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Mapping, Sequence

from stridelint.findings import Applicability
from stridelint.output.concise import BOLD, CYAN, RED_BOLD, paint

if TYPE_CHECKING:
    from stridelint.findings import FileReport, Finding
    from stridelint.output import RenderOptions
    from stridelint.rules.base import Rule


def _findings(reports: Sequence[FileReport]) -> list[Finding]:
    # A file that could not be checked is reported by the CLI, not counted here.
    return [f for report in reports if report.error is None for f in report.findings]


def _applicable(finding: Finding, options: RenderOptions) -> bool:
    return finding.fix is not None and finding.fix.applies_under(options.unsafe_fixes)


def _plural(count: int, noun: str, suffix: str = "s") -> str:
    return f"{count} {noun}{'' if count == 1 else suffix}"


def render_summary(reports: Sequence[FileReport], options: RenderOptions, *, fixing: bool) -> str:
    """`Found N errors.` or `All checks passed!`, then how many `--fix` would fix."""
    findings = _findings(reports)
    remaining = len(findings)
    fixed = sum(r.fixed_count for r in reports if r.error is None) if fixing else 0
    if fixed:
        total = _plural(fixed + remaining, "error")
        lines = [f"Found {total} ({fixed} fixed, {remaining} remaining)."]
    elif remaining:
        lines = [f"Found {_plural(remaining, 'error')}."]
    else:
        lines = ["All checks passed!"]

    applicable = sum(_applicable(f, options) for f in findings)
    hidden = 0
    if not options.unsafe_fixes:
        hidden = sum(
            f.fix is not None and f.fix.applicability is Applicability.UNSAFE for f in findings
        )
    hidden_fixes = _plural(hidden, "hidden fix", "es")
    hint = f"({hidden_fixes} can be enabled with the `--unsafe-fixes` option)"
    marker = paint("[*]", CYAN, options.color)
    if applicable and hidden:
        lines.append(f"{marker} {applicable} fixable with the `--fix` option {hint}.")
    elif applicable:
        lines.append(f"{marker} {applicable} fixable with the `--fix` option.")
    elif hidden:
        lines.append(f"No fixes available {hint}.")
    return "\n".join(lines) + "\n"


def render_statistics(
    reports: Sequence[FileReport], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    """One row per code, `count  code  [*] summary`, most frequent first."""
    findings = _findings(reports)
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if _applicable(f, options)}
    # A code no rule owns (a tool error) is described by its first message.
    described = {f.code: f.message for f in reversed(findings)}
    described |= {code: rule.summary for code, rule in rules.items()}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if not rows:
        return ""
    count_width = max(len(str(count)) for _, count in rows)
    code_width = max(len(code) for code, _ in rows)
    lines = []
    for code, count in rows:
        if not fixable:
            marker = ""
        elif code in fixable:
            marker = paint("[*]", CYAN, options.color) + " "
        else:
            marker = "[ ] "
        lines.append(
            f"{paint(str(count).rjust(count_width), BOLD, options.color)}\t"
            f"{paint(code.ljust(code_width), RED_BOLD, options.color)}\t"
            f"{marker}{described[code]}"
        )
    return "\n".join(lines) + "\n"
