"""The flake8 plugin: `flake8 --select SL` reports what `stridelint check` reports, for teams
whose editors and CI already run flake8.

Findings come from the same engine and the same `[tool.stridelint]` configuration (found from
the current folder, as `check` finds it), stridelint's own suppressions included; flake8 then
applies its `# noqa` handling and its `--select`/`--ignore` on top. A file the interpreter
cannot parse is flake8's E999, not SL900: flake8 runs no tree plugin on it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Iterator

from stridelint import __version__

if TYPE_CHECKING:
    import ast

    from stridelint.config import Config

# Not a rule: how a file the rules crashed on is surfaced (`check` exits 2 for it).
INTERNAL_ERROR_CODE = "SL999"
_STDIN_NAMES = frozenset({"-", "stdin"})


def _load_config() -> Config:
    from stridelint.config import ConfigError, load_config

    try:
        return load_config(Path.cwd())
    except ConfigError as error:
        # flake8 would print a traceback for an exception; a bad setting is the user's to fix.
        print(f"stridelint: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


class StridelintChecker:
    """A flake8 tree plugin; `tree` is unused (LibCST parses the lines) but marks the kind."""

    name = "stridelint"
    version = __version__
    _config: ClassVar[Config | None] = None

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines

    @classmethod
    def parse_options(cls, options: Any) -> None:
        """Called once flake8 has read its options: read the configuration up front, so a
        mistake in it stops the run before any file is checked."""
        cls._config = _load_config()

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from stridelint.engine import lint_text
        from stridelint.source import SourceText

        config = type(self)._config or _load_config()
        path = None if self.filename in _STDIN_NAMES else Path(self.filename)
        result = lint_text(SourceText("".join(self.lines)), config, path)
        for finding in result.findings:
            # flake8 wants 0-based columns; ours are 1-based, both count characters.
            text = f"{finding.code} {finding.message}"
            yield finding.start.row, finding.start.column - 1, text, type(self)
        for message in result.internal_errors:
            text = f"{INTERNAL_ERROR_CODE} stridelint could not check this file: {message}"
            yield 1, 0, text, type(self)
