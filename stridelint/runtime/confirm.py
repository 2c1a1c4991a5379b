"""Tie a runtime report to static findings: which findings did happen, and which runtime
events no rule predicted (the analysis's misses).

An event confirms a finding in the same file whose statement spans the event's line (the
watcher records the line of the innermost user frame, which is the op's statement).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from stridelint.findings import FileReport
from stridelint.runtime.report import Event, format_blowup, read_json


class RuntimeReportError(Exception):
    """The runtime report cannot be read (one line)."""


@dataclass(frozen=True)
class Misses:
    events: list[Event]

    def render(self) -> str:
        if not self.events:
            return ""
        lines = [f"Runtime events with no static finding ({len(self.events)}):"]
        for event in self.events:
            lines.append(
                f"  runtime: {event.filename}:{event.lineno}: {event.rule} {event.op} "
                f"({event.kind}, {format_blowup(event.blowup)})"
            )
        return "\n".join(lines) + "\n"


def load_events(path: Path) -> list[Event]:
    try:
        return [event for _, event in read_json(path)]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise RuntimeReportError(f"{path}: not a stridelint runtime report ({error})") from None


def confirm(reports: list[FileReport], events: list[Event]) -> Misses:
    """Mark confirmed findings in place (their message says so); return the unmatched events."""
    by_file: dict[str, list[Event]] = {}
    for event in events:
        by_file.setdefault(os.path.realpath(event.filename), []).append(event)
    matched: set[int] = set()
    for report in reports:
        file_events = by_file.get(os.path.realpath(report.path), [])
        for index, finding in enumerate(report.findings):
            rows = range(finding.noqa_row, finding.end.row + 1)
            hits = [e for e in file_events if e.lineno in rows]
            if not hits:
                continue
            matched.update(id(e) for e in hits)
            worst = max(hits, key=lambda e: e.blowup)
            note = f" [confirmed at runtime: {len(hits)}x, up to {format_blowup(worst.blowup)}]"
            report.findings[index] = replace(finding, message=finding.message + note)
    checked = {os.path.realpath(r.path) for r in reports}
    return Misses([e for e in events if id(e) not in matched and os.path.realpath(e.filename) in checked])
