"""How the fixes write code: the settings a reviewer would hold them to."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FixStyle:
    """`line_length`: the longest line a fix may write (the project's formatter's); a longer
    rewritten expression is broken inside parentheses. `helper_module`: the dotted module the
    narrow-and-rescale helpers are imported from; None pastes them into the fixed module."""

    line_length: int = 88
    helper_module: str | None = None


DEFAULT_STYLE = FixStyle()
