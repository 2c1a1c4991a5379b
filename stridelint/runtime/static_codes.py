"""The code the static check gives a source line, so a runtime event on that line carries the
same name as the finding (`SL101` for the `!=` of `(mask != 0).sum()`, not the `SL2xx` family
of its elementwise op).

Torch-free, and run only when the watcher records an event: each file is linted once per
content (path, size and modification time), with the settings `stridelint check` would use
from the working directory.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from stridelint.runtime.classify import STATIC_CODE_PREFIXES


def static_code(filename: str, lineno: int, kind: str) -> str | None:
    """The code of a finding whose statement spans `lineno` and that describes an op of
    `kind`; None when no rule flags the line, or the file cannot be linted."""
    try:
        info = os.stat(filename)
    except (OSError, ValueError):  # `<string>`, `<stdin>`, a deleted file
        return None
    try:
        codes = _codes_by_line(filename, info.st_mtime_ns, info.st_size).get(lineno, ())
    except Exception:  # a linter bug must not fail the test being watched
        return None
    for prefix in STATIC_CODE_PREFIXES.get(kind, ()):
        for code in codes:
            if code.startswith(prefix):
                return code
    return None


@functools.lru_cache(maxsize=256)
def _codes_by_line(filename: str, mtime_ns: int, size: int) -> dict[int, tuple[str, ...]]:
    from stridelint.config import Config, ConfigError, load_config
    from stridelint.engine import lint_text
    from stridelint.source import SourceError, decode

    try:
        config = load_config(Path.cwd())
    except ConfigError:  # the check itself would stop on this; the event keeps its family
        config = Config(root=Path.cwd(), source=None)
    try:
        source = decode(Path(filename).read_bytes())
        findings = lint_text(source, config, Path(filename)).findings
    except (OSError, SourceError, RecursionError):
        return {}
    lines: dict[int, list[str]] = {}
    for finding in sorted(findings, key=lambda f: (f.start, f.code)):
        for line in range(finding.noqa_row, finding.end.row + 1):
            lines.setdefault(line, []).append(finding.code)
    return {line: tuple(codes) for line, codes in lines.items()}
