"""Suppression comments: `# noqa`, `# noqa: SL101`, `# stridelint: ignore[SL101]`, and
`# stridelint: skip-file`. Read from comment tokens only, so text inside strings never counts.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
_IGNORE = re.compile(r"#\s*stridelint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")
_SKIP_FILE = re.compile(r"#\s*stridelint:\s*skip-file\b")
_CODE = re.compile(r"[A-Z]+[0-9]+")
# A stridelint code as the comments are read (upper-cased: `ſ` is an `S` too).
_OWN_CODE = re.compile(r"SL[0-9]{3}", re.I)


@dataclass
class Suppressions:
    skip_file: bool = False
    # row -> codes suppressed there; None means every code
    rows: dict[int, frozenset[str] | None] = field(default_factory=dict)
    columns: dict[int, int] = field(default_factory=dict)  # row -> 1-based column of the comment

    def suppresses(self, row: int, code: str) -> bool:
        if row not in self.rows:
            return False
        codes = self.rows[row]
        return codes is None or code in codes


def may_skip_file(text: str) -> bool:
    """False when no comment can say `stridelint: skip-file` (no need to read them first)."""
    return "stridelint:" in text


def may_name_a_code(text: str) -> bool:
    """False when no comment can name one of stridelint's codes (for SL901)."""
    return _OWN_CODE.search(text) is not None


def read_suppressions(text: str) -> Suppressions:
    found = Suppressions()
    if "noqa" not in text and "stridelint:" not in text:
        return found
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return found  # a file that does not tokenize gets SL900, which is not suppressible
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        comment = token.string
        if _SKIP_FILE.search(comment):
            found.skip_file = True
        for pattern in (_NOQA, _IGNORE):
            match = pattern.search(comment)
            if match is None:
                continue
            codes = match.group("codes")
            _add(found, token.start[0], frozenset(_CODE.findall(codes.upper())) if codes else None)
            found.columns.setdefault(token.start[0], token.start[1] + 1)
    return found


def _add(found: Suppressions, row: int, codes: frozenset[str] | None) -> None:
    if row in found.rows and (found.rows[row] is None or codes is None):
        found.rows[row] = None
    elif row in found.rows:
        found.rows[row] = found.rows[row] | codes
    else:
        found.rows[row] = codes
