"""Jupyter notebooks (`.ipynb`): their code cells are linted as one module, so a tensor
expanded in one cell and reduced in another is seen, and each finding is reported in its cell
(`nb.ipynb:cell 3:2:5`, cells counted from 1 in notebook order, Markdown cells included).

The cells are joined with a boundary comment between them; fixes are applied to the joined
text and each cell gets its part back, so a fix that adds `import math` lands in the first
cell. Line magics (`%time f()`, `!pip install x`) stand in as `pass` while linting and are
restored verbatim; a cell magic (`%%bash`) cell is not Python and is left out.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stridelint.findings import Edit, Evidence, FileReport, Finding, Position
from stridelint.source import SourceText

if TYPE_CHECKING:
    from stridelint.engine import FixMode

_BOUNDARY = "# --- stridelint notebook cell {} ---\n"
_BOUNDARY_LINE = re.compile(r"^# --- stridelint notebook cell (\d+) ---\n", re.MULTILINE)
_MAGIC_LINE = re.compile(r"^([ \t]*)[%!].*$", re.MULTILINE)
_MAGIC_STAND_IN = re.compile(r"^[ \t]*pass  # stridelint notebook magic (\d+)$", re.MULTILINE)


class NotebookError(Exception):
    """Not a notebook we can read or write back (one-line reason)."""


@dataclasses.dataclass
class Cell:
    index: int  # 1-based position in the notebook
    text: str  # as linted: magics masked, ending in a line break


@dataclasses.dataclass
class Notebook:
    document: dict[str, Any]
    cells: list[Cell]
    magics: list[str]  # the masked lines, by number
    indent: int | None

    @property
    def text(self) -> str:
        parts = [self.cells[0].text] if self.cells else []
        parts += [_BOUNDARY.format(cell.index) + cell.text for cell in self.cells[1:]]
        return "".join(parts)


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def read(data: bytes) -> Notebook:
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise NotebookError(f"not a notebook: invalid JSON ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotebookError("not a notebook: no `cells` list")
    magics: list[str] = []

    def mask(match: re.Match) -> str:
        magics.append(match.group(0))
        return f"{match.group(1)}pass  # stridelint notebook magic {len(magics) - 1}"

    cells = []
    for index, cell in enumerate(document["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text = _source(cell)
        if text.lstrip().startswith("%%"):
            continue
        text = _MAGIC_LINE.sub(mask, text)
        cells.append(Cell(index, text if text.endswith("\n") or not text else text + "\n"))
    indent = re.match(rb"\{\s*\n( *)", data)
    return Notebook(document, cells, magics, len(indent.group(1)) if indent else None)


def split(notebook: Notebook, text: str) -> list[Cell]:
    """The cells of a joined text (the original or a fixed one), in order."""
    pieces = _BOUNDARY_LINE.split(text)
    indices = [notebook.cells[0].index, *map(int, pieces[1::2])] if notebook.cells else []
    if indices != [cell.index for cell in notebook.cells]:
        raise NotebookError("a fix crossed a cell boundary; not written")
    return [Cell(index, part) for index, part in zip(indices, pieces[::2])]


def _restored(notebook: Notebook, text: str) -> str:
    """The text with each masked magic line back in place of its stand-in."""
    return _MAGIC_STAND_IN.sub(lambda m: notebook.magics[int(m.group(1))], text)


def write(notebook: Notebook, cells: list[Cell]) -> bytes:
    """The notebook with each linted cell's source replaced by its (fixed) text."""
    by_index = {cell.index: cell.text for cell in cells}
    for index, cell in enumerate(notebook.document["cells"], start=1):
        if index not in by_index:
            continue
        text = _restored(notebook, by_index[index])
        original = _source(cell)
        if not original.endswith("\n") and text.endswith("\n"):
            text = text[:-1]  # Jupyter stores a cell without its final line break
        if text != original:
            cell["source"] = text.splitlines(keepends=True) if isinstance(
                cell.get("source"), list) else text
    dumped = json.dumps(notebook.document, indent=notebook.indent, ensure_ascii=False)
    return (dumped + "\n").encode("utf-8")


# ---- findings, in cells ---------------------------------------------------------------------


@dataclasses.dataclass
class _Segment:
    cell: Cell
    first_row: int  # of the cell's first line in the joined text
    start: int  # character offset of the same


def _segments(notebook: Notebook, text: str) -> list[_Segment]:
    segments, row, offset = [], 1, 0
    for cell in split(notebook, text):
        if segments:  # the boundary line before every cell but the first
            row, offset = row + 1, offset + len(_BOUNDARY.format(cell.index))
        segments.append(_Segment(cell, row, offset))
        row += SourceText(cell.text).line_starts.__len__() - 1
        offset += len(cell.text)
    return segments


def _where(segments: list[_Segment], row: int) -> _Segment:
    return [s for s in segments if s.first_row <= row][-1]


def _moved(position: Position, segment: _Segment) -> Position:
    return Position(position.row - segment.first_row + 1, position.column)


def _in_cell(finding: Finding, segments: list[_Segment]) -> tuple[_Segment, Finding]:
    home = _where(segments, finding.start.row)
    evidence = []
    for item in finding.evidence:
        there = _where(segments, item.position.row)
        if there is home:
            evidence.append(Evidence(item.message, _moved(item.position, home)))
            continue
        # A position names no cell: one in another cell is told in the message and points at
        # the finding, so no format prints a row of the wrong cell.
        moved = _moved(item.position, there)
        message = f"{item.message} [cell {there.cell.index}:{moved.row}:{moved.column}]"
        evidence.append(Evidence(message, _moved(finding.start, home)))
    fix = finding.fix
    if fix is not None:
        # The edits in this cell, shown against its text; `--fix` applies all of them.
        edits = tuple(
            Edit(e.start - home.start, e.end - home.start, e.content,
                 _moved(e.start_position, home), _moved(e.end_position, home), e.shared)
            for e in fix.edits
            if _where(segments, e.start_position.row) is home
        )  # fmt: skip
        fix = dataclasses.replace(fix, edits=edits) if edits else None
    end = finding.end if _where(segments, finding.end.row) is home else finding.start
    return home, dataclasses.replace(
        finding, start=_moved(finding.start, home), end=_moved(end, home),
        noqa_row=finding.noqa_row - home.first_row + 1, evidence=tuple(evidence), fix=fix,
    )  # fmt: skip


def cell_reports(path: str, notebook: Notebook, text: str, findings: list[Finding],
                 original: str | None) -> list[FileReport]:
    """One report per linted cell, named `path:cell N`, its findings in cell coordinates."""
    segments = _segments(notebook, text)
    before = {c.index: _restored(notebook, c.text)
              for c in (split(notebook, original) if original is not None else [])}
    reports = {s.cell.index: FileReport(f"{path}:cell {s.cell.index}",
                                        _restored(notebook, s.cell.text))
               for s in segments}
    for finding in findings:
        home, moved = _in_cell(finding, segments)
        reports[home.cell.index].findings.append(moved)
    for index, report in reports.items():
        if index in before and before[index] != report.source:
            report.original_source = before[index]
    return list(reports.values())


def check(path: Path, config: Any, mode: FixMode) -> list[FileReport]:
    """Lint (and maybe fix and write back) one notebook. `config` is a stridelint Config (not
    named here: the configuration layer sits above the engine's)."""
    from stridelint.engine import WriteError, fix_text, lint_text, write_atomically

    display = str(path)
    try:
        data = path.read_bytes()
        notebook = read(data)
    except OSError as error:
        return [FileReport(display, "", error=error.strerror or str(error))]
    except NotebookError as error:
        return [FileReport(display, "", error=str(error))]
    if not notebook.cells:
        return [FileReport(display, "")]
    text = notebook.text
    if mode.apply:
        outcome = fix_text(SourceText(text), config, path, mode.unsafe)
        fixed, findings, errors, count = (outcome.text, outcome.findings,
                                          outcome.internal_errors, outcome.fixed_count)
    else:
        result = lint_text(SourceText(text), config, path)
        fixed, findings, errors, count = text, result.findings, result.internal_errors, 0
    try:
        reports = cell_reports(display, notebook, fixed, findings,
                               text if fixed != text else None)
    except NotebookError as error:
        return [FileReport(display, "", error=str(error))]
    reports[0].internal_errors = errors
    reports[0].fixed_count = count
    if fixed != text and mode.write:
        try:
            write_atomically(path, data, write(notebook, split(notebook, fixed)))
        except WriteError as error:
            reports.append(FileReport(display, "", error=f"not fixed: {error}"))
    return reports
