"""SL900: the file does not parse, so nothing else in it was checked."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from stridelint.findings import Finding, Position
from stridelint.rules.base import SYNTAX, Rule

if TYPE_CHECKING:
    from pathlib import Path

    from stridelint.source import SourceText


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports a file that cannot be parsed, at the interpreter's position for the error (or
    LibCST's, for valid Python newer than LibCST knows). The other files of the run are still
    checked.

    ## Why is this bad?
    stridelint cannot check (or fix) code it cannot parse, so a syntax error hides every other
    finding in the file. Python 2 code, an unterminated string or a stray null byte all end
    here.

    ## Example
    ```python
    def f(x)
        return x.expand(4, 4).sum()
    ```

    ## Use instead
    ```python
    def f(x):
        return x.expand(4, 4).sum()
    ```

    ## Fix safety
    There is no fix: the file has to be corrected by hand.
    """

    code = "SL900"
    name = "syntax-error"
    summary = "File could not be parsed"
    severity = "error"

    trigger = SYNTAX

    def check_syntax(
        self,
        source: SourceText,
        path: Path | None,
        parser_error: tuple[int, int, str] | None = None,
    ) -> list[Finding]:
        """The finding for a file LibCST rejected: at the interpreter's position when the
        interpreter rejects it too (clearer), else at LibCST's `(row, column, message)`."""
        try:
            compile(source.text, str(path or "<stdin>"), "exec", ast.PyCF_ONLY_AST)
        except SyntaxError as python_error:
            return [_finding(source, python_error.lineno or 1, python_error.offset or 1,
                             python_error.msg)]  # fmt: skip
        except ValueError as python_error:  # e.g. null bytes
            return [_finding(source, 1, 1, str(python_error))]
        if parser_error is None:
            return [_finding(source, 1, 1, "the file could not be parsed")]
        row, column, message = parser_error
        return [_finding(source, row, column, f"LibCST cannot parse this: {message}")]


def _finding(source: SourceText, row: int, column: int, message: str) -> Finding:
    row = max(1, min(row, len(source.line_starts)))
    position = Position(row, max(1, column))
    text = " ".join(message.split()) or "the file could not be parsed"
    return Finding("SL900", f"Syntax error: {text}", position, position, row)
