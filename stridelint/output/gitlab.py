"""GitLab code quality (a subset of Code Climate's JSON): a merge request's widget and diff
show each finding. Paths are relative to the project's root, and each finding's fingerprint
stays the same while the code around it moves, so GitLab can tell new findings from old."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from stridelint.findings import Finding
    from stridelint.output import CheckedFile, RenderOptions

# Code Climate's scale is info, minor, major, critical, blocker.
_SEVERITY = {"warning": "minor", "error": "major"}


def project_path(path: str, root: Path) -> str:
    """`path` relative to `root` in POSIX form; a path outside `root` keeps its own form."""
    absolute = Path(os.path.normpath(Path.cwd() / path))
    for base in (root, root.resolve()):
        if absolute.is_relative_to(base):
            return absolute.relative_to(base).as_posix()
    return Path(path).as_posix()


def _severity(code: str, rules: Mapping[str, Any]) -> str:
    rule = rules.get(code)
    return "major" if rule is None else _SEVERITY.get(rule.severity, "major")


def _issue(
    path: str, finding: Finding, occurrence: int, rules: Mapping[str, Any]
) -> dict[str, Any]:
    # No row in the fingerprint: an edit above the finding must not make it a new one.
    key = "\0".join((path, finding.code, finding.message, str(occurrence)))
    return {
        "description": f"{finding.code}: {finding.message}",
        "check_name": finding.code,
        "fingerprint": hashlib.sha256(key.encode("utf-8")).hexdigest(),
        "severity": _severity(finding.code, rules),
        "location": {
            "path": path,
            "lines": {"begin": finding.start.row, "end": finding.end.row},
        },
    }


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, Any], options: RenderOptions
) -> str:
    # GitLab runs jobs in CI_PROJECT_DIR; elsewhere the current folder is the best guess.
    root = Path(os.path.abspath(os.environ.get("CI_PROJECT_DIR") or "."))
    seen: Counter[tuple[str, str, str]] = Counter()
    issues = []
    for report, findings in files:
        path = project_path(report.path, root)
        for finding in findings:
            occurrence = seen[path, finding.code, finding.message]
            seen[path, finding.code, finding.message] += 1
            issues.append(_issue(path, finding, occurrence, rules))
    return json.dumps(issues, indent=2) + "\n"
