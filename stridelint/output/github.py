"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

Every finding is an `::error`, as the check's non-zero exit treats it; a rule's softer
severity is carried by SARIF's `level`, where code scanning can filter on it.
"""

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


def _command(path: str, finding: Finding) -> str:
    properties = {
        "file": path,
        "line": finding.start.row,
        "col": finding.start.column,
        "endLine": finding.end.row,
        "endColumn": finding.end.column,
        "title": finding.code,
    }
    joined = ",".join(f"{key}={_escape_property(str(value))}" for key, value in properties.items())
    return f"::error {joined}::{_escape_data(finding.message)}\n"


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    return "".join(_command(report.path, f) for report, findings in files for f in findings)
