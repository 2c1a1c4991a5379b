"""Ruff's JSON format, plus the evidence behind each finding: tools that read Ruff's output
read ours."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from stridelint.findings import Finding, Fix, Position
    from stridelint.output import CheckedFile, RenderOptions
    from stridelint.rules.base import Rule


def _location(position: Position) -> dict[str, int]:
    return {"row": position.row, "column": position.column}


def _fix(fix: Fix) -> dict[str, Any]:
    return {
        "applicability": fix.applicability.value,
        "message": fix.message,
        "edits": [
            {
                "content": edit.content,
                "location": _location(edit.start_position),
                "end_location": _location(edit.end_position),
            }
            for edit in sorted(fix.edits, key=lambda e: e.start)
        ],
    }


def finding_record(path: str, finding: Finding, rules: Mapping[str, type[Rule]]) -> dict[str, Any]:
    """One finding as Ruff's JSON object, plus its evidence and whether it is low severity;
    `cell` is always null (no notebooks)."""
    rule = rules.get(finding.code)
    return {
        "cell": None,
        "code": finding.code,
        "message": finding.message,
        "filename": path,
        "location": _location(finding.start),
        "end_location": _location(finding.end),
        "fix": None if finding.fix is None else _fix(finding.fix),
        "noqa_row": finding.noqa_row,
        "url": None if rule is None else rule.url(),
        "low_severity": finding.low,  # shown only under the `low-severity` setting
        "evidence": [
            {"message": evidence.message, "location": _location(evidence.position)}
            for evidence in finding.evidence
        ],
    }


def records(files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]]) -> list[dict[str, Any]]:
    return [finding_record(report.path, f, rules) for report, findings in files for f in findings]


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    # Sorted keys, as Ruff prints them: stable output for diffs and snapshots.
    return json.dumps(records(files, rules), indent=2, sort_keys=True) + "\n"
