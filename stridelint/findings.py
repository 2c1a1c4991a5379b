"""The data every layer exchanges: findings, their evidence and their fixes.

Positions are 1-based rows and 1-based columns (counted in characters), as in Ruff's JSON.
An edit also keeps its character offsets into the decoded source, which is what the fix
engine applies; the positions are for people and for the output formats.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Applicability(str, enum.Enum):
    """How sure we are that a fix keeps the program's behaviour (STYLE.md, Ruff's model)."""

    SAFE = "safe"  # values, dtypes, shapes and strides a caller can observe are unchanged
    UNSAFE = "unsafe"  # same values, but e.g. float rounding or a stride-0 result may differ
    DISPLAY = "display"  # shown to the user, never applied


@dataclass(frozen=True, order=True)
class Position:
    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace source[start:end] (character offsets) with `content`."""

    start: int
    end: int
    content: str
    start_position: Position
    end_position: Position
    # An addition several fixes may make alike (an import, a helper definition): fixes that
    # share it apply in one round, and it is made once.
    shared: bool = False


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]

    def applies_under(self, unsafe_fixes: bool) -> bool:
        if self.applicability is Applicability.SAFE:
            return True
        return unsafe_fixes and self.applicability is Applicability.UNSAFE


@dataclass(frozen=True)
class Evidence:
    """One reason the tensor may be broadcast, and where in the file that reason stands."""

    message: str
    position: Position


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    start: Position
    end: Position
    noqa_row: int  # the row a suppression comment must be on (first row of the statement)
    evidence: tuple[Evidence, ...] = ()
    fix: Fix | None = None
    # Costs little or is usually needed (an explicit copy handed to code the linter cannot
    # see): reported only with the `low-severity` setting, but still honours suppressions.
    low: bool = False


@dataclass
class FileReport:
    """Everything a formatter needs about one file after checking (and perhaps fixing) it."""

    path: str  # as the user named it, or as discovered
    source: str  # the final text, after fixes were applied
    findings: list[Finding] = field(default_factory=list)
    fixed_count: int = 0  # fixes applied to this file
    original_source: str | None = None  # set when fixes changed the text
    error: str | None = None  # one-line reason the file could not be checked (exit 2)
    internal_errors: list[str] = field(default_factory=list)  # a rule or fix failed (exit 2)

    def is_clean(self, *, findings_allowed: bool = False) -> bool:
        """Nothing to report (findings aside, if allowed) and nothing changed: what the
        cache's file index holds."""
        return not (
            (self.findings and not findings_allowed) or self.error or self.internal_errors
            or self.fixed_count or self.original_source is not None
        )
