"""Code as a message shows it: on one line. No LibCST here: the rule registry's wording
imports it, and importing the registry must not import LibCST."""

from __future__ import annotations

import re


# The line breaks and indents of code spread over lines, inside brackets or before a `.`.
_BREAK_INSIDE = re.compile(r"(?<=[(\[{])\s+|\s+(?=[)\]}]|\.[A-Za-z_])")


def one_line(code: str) -> str:
    """Code spread over lines, on one line as it would be written there: no space after an
    opening bracket, before a closing one, or before the dot of a method chain broken over
    lines (`m.view(b, 1).expand(...)`); one space for any other run of whitespace."""
    return _BREAK_INSIDE.sub("", " ".join(code.split()))
