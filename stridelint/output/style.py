"""ANSI styles shared by the human formats; plain text unless the CLI turned colour on."""

from __future__ import annotations

BOLD = "1"
RED_BOLD = "1;31"
GREEN = "32"
CYAN = "36"
BLUE_BOLD = "1;34"


def paint(text: str, style: str, color: bool) -> str:
    """Wrap `text` in an ANSI style only when colour is on, so plain output stays plain."""
    return f"\x1b[{style}m{text}\x1b[0m" if color else text
