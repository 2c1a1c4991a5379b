"""The language server behind `stridelint server`: diagnostics and quick fixes in editors.

pygls (the `lsp` extra) is imported only when the server starts, so the linter itself never
needs it.
"""

from __future__ import annotations

import sys

INSTALL_HINT = "stridelint server needs pygls: pip install 'stridelint[lsp]' (or pip install pygls)"


def main() -> int:
    """Serve over standard input and output until the client says `exit`."""
    try:
        from stridelint.lsp.server import build_server
    except ImportError as error:
        if error.name not in ("pygls", "lsprotocol") and not str(error.name).startswith(
            ("pygls.", "lsprotocol.")
        ):
            raise
        print(f"stridelint: error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    build_server().start_io()
    return 0
