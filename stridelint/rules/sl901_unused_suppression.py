"""SL901: a suppression comment names a stridelint code that has nothing to suppress."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from stridelint.rules.base import Rule

if TYPE_CHECKING:
    from stridelint.context import RuleContext
    from stridelint.findings import Finding


class UnusedSuppression(Rule):
    """
    ## What it does
    Reports a `# noqa: SL101` or `# stridelint: ignore[SL101]` whose line has no SL101 finding.
    The engine emits this finding itself, after every other rule ran. Only stridelint codes of
    enabled rules are checked: other tools' codes in the same comment, and a bare `# noqa`,
    are left alone.

    ## Why is this bad?
    A suppression that outlived its finding (the code was fixed, or the finding moved to
    another line) hides the next real finding on that line, and tells readers something about
    the code that is no longer true.

    ## Example
    ```python
    mask_small, mask_reps = _narrow_broadcast(mask)
    kept = mask_small != 0  # noqa: SL101
    ```

    ## Use instead
    ```python
    mask_small, mask_reps = _narrow_broadcast(mask)
    kept = mask_small != 0
    ```

    ## Fix safety
    There is no fix yet: remove the code from the comment by hand.
    """

    code = "SL901"
    name = "unused-suppression"
    summary = "Suppression comment with nothing to suppress"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        return iter(())  # emitted by the engine, which sees the suppressions and every finding
