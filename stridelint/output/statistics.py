"""`--statistics`: one row per rule code, as a table for people or as JSON for tools."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from stridelint.output.style import BOLD, CYAN, RED_BOLD, paint
from stridelint.output.summary import applicable, checked_findings

if TYPE_CHECKING:
    from stridelint.findings import FileReport
    from stridelint.output import RenderOptions
    from stridelint.rules.base import Rule

# The output formats `--statistics` can be printed in; the others describe single findings.
STATISTICS_FORMATS: tuple[str, ...] = ("concise", "full", "json", "json-lines")


def _rows(
    reports: Sequence[FileReport], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> list[dict[str, Any]]:
    """Per code, most frequent first: count, how many `--fix` would fix, and a description."""
    findings = checked_findings(reports)
    counts = Counter(f.code for f in findings)
    fixable = Counter(f.code for f in findings if applicable(f, options))
    # A code no rule owns (a tool error) is described by its first message.
    described = {f.code: f.message for f in reversed(findings)}
    described |= {code: rule.summary for code, rule in rules.items()}
    return [
        {
            "code": code,
            "name": rules[code].name if code in rules else None,
            "count": count,
            "fixable": fixable[code] > 0,
            "fixable_count": fixable[code],
            "summary": described[code],
        }
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def render_statistics(
    reports: Sequence[FileReport],
    rules: Mapping[str, type[Rule]],
    options: RenderOptions,
    fmt: str = "concise",
) -> str:
    """The rows as a tab-separated table (`count  code  [*] summary`), a JSON array (`json`)
    or one JSON object per line (`json-lines`)."""
    rows = _rows(reports, rules, options)
    if fmt == "json":
        return json.dumps(rows, indent=2, sort_keys=True) + "\n"
    if fmt == "json-lines":
        compact = (json.dumps(row, separators=(",", ":"), sort_keys=True) for row in rows)
        return "".join(line + "\n" for line in compact)
    if fmt not in STATISTICS_FORMATS:
        raise ValueError(f"--statistics cannot be printed as {fmt!r}")
    return _table(rows, options)


def _table(rows: list[dict[str, Any]], options: RenderOptions) -> str:
    if not rows:
        return ""
    count_width = max(len(str(row["count"])) for row in rows)
    code_width = max(len(row["code"]) for row in rows)
    any_fixable = any(row["fixable"] for row in rows)
    lines = []
    for row in rows:
        if not any_fixable:
            marker = ""
        elif row["fixable"]:
            marker = paint("[*]", CYAN, options.color) + " "
        else:
            marker = "[ ] "
        lines.append(
            f"{paint(str(row['count']).rjust(count_width), BOLD, options.color)}\t"
            f"{paint(row['code'].ljust(code_width), RED_BOLD, options.color)}\t"
            f"{marker}{row['summary']}"
        )
    return "\n".join(lines) + "\n"
