"""Decide from the text alone whether a file can produce a broadcast finding.

Every broadcast fact the analysis can reach starts from a token this regex finds: a
stride-0 source (`expand`, `broadcast_to`, `broadcast_tensors`, `as_strided`,
`empty_strided`), a docstring that says "broadcast", a stride check, a jaxtyping `#` dim or
a configured hint name. A string escape (`\\x63` for `c`) could spell any of them, so a file with one
is parsed too. A file without one is only checked for syntax errors (with the
interpreter's fast parser), never parsed with LibCST: most files of a real tree.
"""

from __future__ import annotations

import re
from functools import lru_cache

_TRIGGERS = (
    r"expand|broadcast|stride|as_strided"
    r"|[\"'][^\"'\n]*#"  # a `#` dim in a jaxtyping string
    r'|"""[^"]*#' r"|'''[^']*#"  # ... in a triple-quoted one, over several lines
    r"|\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{|[0-7]{3})"  # escapes hide words
)


@lru_cache(maxsize=32)
def _pattern(hints: tuple[str, ...]) -> re.Pattern[str]:
    words = "".join(f"|\\b{re.escape(h)}\\b" for h in hints)
    return re.compile(_TRIGGERS + words, re.IGNORECASE)


def may_have_findings(text: str, broadcast_hints: tuple[str, ...] = ()) -> bool:
    return _pattern(tuple(sorted(broadcast_hints))).search(text) is not None
