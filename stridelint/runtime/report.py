"""Events the watcher records, their JSON form and the summary table.

Kept free of torch so the pytest plugin can import it in runs that never watch anything.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Iterable

JSON_VERSION = 1


@dataclass(frozen=True)
class Event:
    """One op that materialized, reduced or wrote a broadcast (stride-0) tensor.

    `shape`, `stride`, `dtype` and `device` describe the broadcast tensor the op read (or, for a
    write, the one it wrote into). `output_bytes` depends on `kind`:

    * elementwise, cast, copy: bytes of the storages the op's outputs newly allocated;
    * reduction: the broadcast input's logical bytes (or the output's, if larger), the size of
      the full temporary that, e.g., a bool or int sum allocates to upcast to int64 (§1.4);
    * write: the target's logical bytes, all of them aliasing `storage_bytes` of memory.

    `storage_bytes` is the largest storage among the op's tensor inputs (the write target for a
    write): an op whose output is no larger than some dense input is ordinary broadcasting.

    `code` is the rule code the static check gives the event's line (`SL101` for the `!=` of
    `(mask != 0).sum()`), so runtime and static reports name the same line alike; None when no
    rule flags the line, and `family` (the kind's rule family, `SL2xx`) names it instead.
    """

    op: str
    kind: str
    family: str
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: str
    device: str
    output_bytes: int
    storage_bytes: int
    filename: str
    lineno: int
    function: str
    code: str | None = None

    @property
    def blowup(self) -> float:
        return self.output_bytes / max(self.storage_bytes, 1)

    @property
    def rule(self) -> str:
        """The static check's code for the line, or else the rule family of the op's kind."""
        return self.code or self.family

    def describe(self) -> str:
        """One line for a test failure or a log: where, which op, and how much."""
        what = {
            "reduction": "reduced {out} logical bytes held in {storage} of storage",
            "write": "wrote into {out} logical bytes aliasing {storage} of storage",
        }.get(self.kind, "allocated {out} from {storage} of storage")
        amounts = what.format(
            out=format_bytes(self.output_bytes), storage=format_bytes(self.storage_bytes)
        )
        return (
            f"{short_path(self.filename)}:{self.lineno} in {self.function}: {self.op} "
            f"({self.kind}, {self.rule}) on {self.dtype}{list(self.shape)} "
            f"stride {list(self.stride)}: {amounts} ({format_blowup(self.blowup)})"
        )


@dataclass(frozen=True)
class SummaryRow:
    """Events aggregated by (source location, op)."""

    filename: str
    lineno: int
    function: str
    op: str
    kind: str
    rule: str
    count: int
    worst_blowup: float
    worst_output_bytes: int


def summarize(events: Iterable[Event]) -> list[SummaryRow]:
    """Group by (location, op); worst blow-up first, so the table starts with what matters."""
    groups: dict[tuple[str, int, str, str], list[Event]] = {}
    for event in events:
        key = (event.filename, event.lineno, event.function, event.op)
        groups.setdefault(key, []).append(event)
    rows = [
        SummaryRow(
            filename=filename,
            lineno=lineno,
            function=function,
            op=op,
            kind=group[0].kind,
            rule=group[0].rule,
            count=len(group),
            worst_blowup=max(e.blowup for e in group),
            worst_output_bytes=max(e.output_bytes for e in group),
        )
        for (filename, lineno, function, op), group in groups.items()
    ]
    rows.sort(key=lambda r: (-r.worst_blowup, r.filename, r.lineno, r.op))
    return rows


def format_table(rows: Iterable[SummaryRow]) -> str:
    """Fixed-width text table: location, op, rule (code or family) and kind, blow-up, bytes,
    count."""
    header = ("location", "op", "rule", "blow-up", "bytes", "count")
    body = [
        (
            f"{short_path(r.filename)}:{r.lineno} ({r.function})",
            r.op,
            f"{r.rule} {r.kind}",
            format_blowup(r.worst_blowup),
            format_bytes(r.worst_output_bytes),
            str(r.count),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    numeric = {3, 4, 5}
    lines = []
    for line in [header, *body]:
        cells = [
            cell.rjust(width) if i in numeric else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(line, widths))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def event_to_dict(event: Event, test: str | None = None) -> dict[str, Any]:
    """The JSON record of an event: its fields, the test it ran in and the derived blow-up."""
    return {"test": test, **asdict(event), "blowup": event.blowup}


def event_from_dict(record: dict[str, Any]) -> tuple[str | None, Event]:
    """Inverse of `event_to_dict`; `blowup` is recomputed, not read."""
    values = {f.name: record[f.name] for f in fields(Event) if f.name != "code"}
    values["code"] = record.get("code")  # absent from reports written before it existed
    values["shape"], values["stride"] = tuple(values["shape"]), tuple(values["stride"])
    return record["test"], Event(**values)


def write_json(path: str | os.PathLike[str], records: Iterable[tuple[str | None, Event]]) -> None:
    """(test id or None, event) pairs as one flat list, easy to query with jq."""
    events = [event_to_dict(event, test) for test, event in records]
    document = {"version": JSON_VERSION, "events": events}
    Path(path).write_text(json.dumps(document, indent=2) + "\n")


def read_json(path: str | os.PathLike[str]) -> list[tuple[str | None, Event]]:
    document = json.loads(Path(path).read_text())
    if document.get("version") != JSON_VERSION:
        version = document.get("version")
        raise ValueError(f"{path}: unsupported stridelint runtime JSON version {version!r}")
    return [event_from_dict(record) for record in document["events"]]


def format_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def format_blowup(ratio: float) -> str:
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.1f}x"


def short_path(filename: str) -> str:
    """Relative to the working directory when the file is under it; absolute otherwise."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive on Windows
        return filename
    return filename if relative.startswith(os.pardir) else relative
