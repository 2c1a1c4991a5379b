"""Output formats: findings in, text out; the CLI decides where the text goes.

Every formatter sees the same view of the run: reports that could be checked (a report
with `error` set is the CLI's to print), findings ordered by row, column and code, so two
runs over the same files print the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from stridelint.output import concise, full, github, gitlab, jsonlines, junit, pylint, sarif
from stridelint.output import json as json_format
from stridelint.output.statistics import STATISTICS_FORMATS, render_statistics
from stridelint.output.summary import render_fix_only_summary, render_summary

if TYPE_CHECKING:
    from stridelint.findings import FileReport, Finding
    from stridelint.rules.base import Rule

__all__ = [
    "FORMATS",
    "STATISTICS_FORMATS",
    "RenderOptions",
    "render",
    "render_fix_only_summary",
    "render_statistics",
    "render_summary",
]

FORMATS: tuple[str, ...] = (
    "concise", "full", "json", "json-lines", "github", "sarif", "junit", "gitlab", "pylint",
)


@dataclass(frozen=True)
class RenderOptions:
    show_fixes: bool = False  # concise and full: print each fix as a unified diff
    color: bool = False  # ANSI colour; the CLI decides (a TTY and no NO_COLOR)
    unsafe_fixes: bool = False  # which fixes count as applicable ("[*]" and the summary)


CheckedFile = tuple["FileReport", Sequence["Finding"]]
Formatter = Callable[[Sequence[CheckedFile], Mapping[str, "type[Rule]"], RenderOptions], str]

_FORMATTERS: dict[str, Formatter] = {
    "concise": concise.render,
    "full": full.render,
    "json": json_format.render,
    "json-lines": jsonlines.render,
    "github": github.render,
    "sarif": sarif.render,
    "junit": junit.render,
    "gitlab": gitlab.render,
    "pylint": pylint.render,
}


def checked_files(reports: Sequence[FileReport]) -> list[CheckedFile]:
    """The reports that were checked, each with its findings in print order."""
    return [
        (report, sorted(report.findings, key=lambda f: (f.start, f.code)))
        for report in reports
        if report.error is None
    ]


def render(
    fmt: str,
    reports: Sequence[FileReport],
    rules: Mapping[str, type[Rule]],
    options: RenderOptions,
) -> str:
    """The whole text to print, ending in a newline; empty when a line format has nothing."""
    try:
        formatter = _FORMATTERS[fmt]
    except KeyError:
        choices = ", ".join(FORMATS)
        raise ValueError(f"unknown output format {fmt!r}; choose from {choices}") from None
    return formatter(checked_files(reports), rules, options)
