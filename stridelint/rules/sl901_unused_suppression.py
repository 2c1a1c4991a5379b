"""SL901: a suppression comment names a stridelint code that has nothing to suppress."""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping

from stridelint.findings import Finding, Position
from stridelint.rules.base import SUPPRESSIONS, Rule

# stridelint's own codes: `SL` and three digits. Ruff's `SLF001` or `SLOT000` share the
# letters, not the namespace.
_OWN_CODE = re.compile(r"SL[0-9]{3}")


class UnusedSuppression(Rule):
    """
    ## What it does
    Reports a `# noqa: SL101` or `# stridelint: ignore[SL101]` whose line has no SL101 finding,
    once every other rule has run. Only stridelint codes of enabled rules are checked: other
    tools' codes in the same comment, and a bare `# noqa`, are left alone.

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

    trigger = SUPPRESSIONS

    def check_suppressions(
        self,
        suppressed: Mapping[int, frozenset[str] | None],
        columns: Mapping[int, int],
        findings: Iterable[Finding],
        is_enabled: Callable[[str], bool],
    ) -> list[Finding]:
        """For each row's comment (`suppressed`: row -> codes, None for a bare `# noqa`), the
        stridelint codes of enabled rules that no finding on that row needs."""
        used: dict[int, set[str]] = {}
        for finding in findings:
            used.setdefault(finding.noqa_row, set()).add(finding.code)
        found = []
        for row, codes in sorted(suppressed.items()):
            if codes is None:
                continue
            unused = sorted(
                code for code in codes
                if _OWN_CODE.fullmatch(code) and code not in used.get(row, ())
                and code != self.code and is_enabled(code)
            )  # fmt: skip
            if unused:
                position = Position(row, columns.get(row, 1))
                message = f"Unused suppression of {', '.join(unused)}: nothing to suppress on this line"
                found.append(Finding(self.code, message, position, position, row))
        return found
