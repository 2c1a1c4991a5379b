"""SL900: the file does not parse, so nothing else in it was checked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from stridelint.rules.base import Rule

if TYPE_CHECKING:
    from stridelint.context import RuleContext
    from stridelint.findings import Finding


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports a file that LibCST cannot parse, at the position of the error. The engine emits
    this finding itself; the other files of the run are still checked.

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

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        return iter(())  # emitted by the engine, which sees the parse error
