"""Pylint's parseable format, `path:row: [CODE] message`: what editors and CI log scrapers that
already understand Pylint (Jenkins' warnings plugin, Emacs' compile mode) parse."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from stridelint.output import CheckedFile, RenderOptions


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, Any], options: RenderOptions
) -> str:
    # One finding, one line: a parser reads line by line, so a line break may not split one.
    return "".join(
        f"{report.path}:{f.start.row}: [{f.code}] {' '.join(f.message.splitlines())}\n"
        for report, findings in files
        for f in findings
    )
