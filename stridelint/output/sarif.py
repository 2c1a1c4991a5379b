"""SARIF 2.1.0, the format code-scanning services (GitHub, Azure DevOps, IDEs) import.

A finding's evidence goes in twice: as `relatedLocations` (each reason, where it stands) and
as a `codeFlows` path from where the broadcast begins to the op that materializes it, which
viewers such as GitHub's code scanning show step by step.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import quote

import stridelint

if TYPE_CHECKING:
    from stridelint.findings import Finding, Fix, Position
    from stridelint.output import CheckedFile, RenderOptions
    from stridelint.rules.base import Rule

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://stridelint.dev"
_WHAT_IT_DOES = re.compile(r"^#+\s*What it does\s*\n(.*?)(?=^#|\Z)", re.MULTILINE | re.DOTALL)


def _level(code: str, rules: Mapping[str, type[Rule]]) -> str:
    """The rule's severity; a code no rule owns (a tool error) is an error."""
    rule = rules.get(code)
    return "error" if rule is None else rule.severity


def _uri(path: str) -> str:
    """A relative path stays relative (to the checkout's root); an absolute one is a file URI."""
    pure = PurePath(path)
    return pure.as_uri() if pure.is_absolute() else quote(pure.as_posix())


def _region(start: Position, end: Position | None = None) -> dict[str, int]:
    # Both SARIF and Position count rows and columns from 1; the end column is exclusive in both.
    region = {"startLine": start.row, "startColumn": start.column}
    if end is not None:
        region |= {"endLine": end.row, "endColumn": end.column}
    return region


def _rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    page = rule.page()
    what_it_does = _WHAT_IT_DOES.search(page)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {
            "text": what_it_does.group(1).strip() if what_it_does else rule.summary
        },
        "help": {"text": page, "markdown": page},
        "helpUri": rule.url(),
        "defaultConfiguration": {"level": rule.severity},
    }


def _fix(uri: str, fix: Fix) -> dict[str, Any]:
    return {
        "description": {"text": fix.message},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": uri},
                "replacements": [
                    {
                        "deletedRegion": _region(edit.start_position, edit.end_position),
                        "insertedContent": {"text": edit.content},
                    }
                    for edit in sorted(fix.edits, key=lambda e: e.start)
                ],
            }
        ],
        # SARIF has no notion of fix safety; keep ours so a consumer can tell.
        "properties": {"applicability": fix.applicability.value},
    }


def _flow_step(
    uri: str, message: str, start: Position, end: Position | None = None
) -> dict[str, Any]:
    return {
        "location": {
            "physicalLocation": {"artifactLocation": {"uri": uri}, "region": _region(start, end)},
            "message": {"text": message},
        },
        "nestingLevel": 0,
    }


def _code_flow(uri: str, finding: Finding) -> dict[str, Any]:
    """The evidence chain in execution order, ending at the finding.

    Rules list evidence nearest hop first (each hop prepends itself to what its source knew),
    so the flow reads it backwards: `expand` -> passed as `Mask` -> `Mask != 0`.
    """
    steps = [_flow_step(uri, e.message, e.position) for e in reversed(finding.evidence)]
    steps.append(_flow_step(uri, finding.message, finding.start, finding.end))
    for order, step in enumerate(steps, start=1):
        step["executionOrder"] = order
    steps[0]["importance"] = steps[-1]["importance"] = "essential"
    return {
        "message": {"text": "How the broadcast tensor reaches the op that materializes it"},
        "threadFlows": [{"locations": steps}],
    }


def _result(
    path: str, finding: Finding, rules: Mapping[str, type[Rule]], rule_index: Mapping[str, int]
) -> dict[str, Any]:
    uri = _uri(path)
    result: dict[str, Any] = {"ruleId": finding.code}
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    result |= {
        "level": "note" if finding.low else _level(finding.code, rules),
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": _region(finding.start, finding.end),
                }
            }
        ],
    }
    if finding.evidence:
        result["relatedLocations"] = [
            {
                "id": number,
                "message": {"text": evidence.message},
                "physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": _region(evidence.position),
                },
            }
            for number, evidence in enumerate(finding.evidence)
        ]
        result["codeFlows"] = [_code_flow(uri, finding)]
    if finding.fix is not None:
        result["fixes"] = [_fix(uri, finding.fix)]
    return result


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    descriptors = [_rule_descriptor(rules[code]) for code in sorted(rules)]
    rule_index = {descriptor["id"]: index for index, descriptor in enumerate(descriptors)}
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "stridelint",
                        "version": stridelint.__version__,
                        "informationUri": INFORMATION_URI,
                        "rules": descriptors,
                    }
                },
                # Our columns count characters (code points); SARIF's default is UTF-16 units.
                "columnKind": "unicodeCodePoints",
                "results": [
                    _result(report.path, f, rules, rule_index)
                    for report, findings in files
                    for f in findings
                ],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"
