"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:
    from stridelint.findings import Finding
    from stridelint.output import CheckedFile, RenderOptions
    from stridelint.rules.base import Rule


def _escape_data(text: str) -> str:
    """A line break would end the command and `%` starts an escape (GitHub's toolkit rules)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """Properties are also split on `,` and `:`."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def level(code: str, rules: Mapping[str, type[Rule]]) -> str:
    """The rule's severity; a code no rule owns (a tool error) is an error."""
    rule = rules.get(code)
    return "error" if rule is None else rule.severity


def _command(path: str, finding: Finding, rules: Mapping[str, type[Rule]]) -> str:
    properties = {
        "title": f"stridelint ({finding.code})",
        "file": path,
        "line": finding.start.row,
        "col": finding.start.column,
        "endLine": finding.end.row,
        "endColumn": finding.end.column,
    }
    joined = ",".join(f"{key}={_escape_property(str(value))}" for key, value in properties.items())
    message = _escape_data(f"{finding.code} {finding.message}")
    return f"::{level(finding.code, rules)} {joined}::{message}\n"


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    return "".join(_command(report.path, f, rules) for report, findings in files for f in findings)
