"""The golden autofix corpus under fixes/: discovery and the outputs each case must match.

Layout: fixes/<CODE>/<case>.before.py, <case>.expect (one finding a line, format below; empty
for a negative case), <case>.after.py (safe fixes applied; absent when they change nothing),
<case>.unsafe.py (unsafe fixes too; absent when equal to the safe output), and an optional
<case>.toml holding settings in `stridelint.toml` form.

An `.expect` line pins a finding's start, code, fix applicability and full message:

    ROW:COL CODE [APPLICABILITY] MESSAGE

e.g. `4:13 SL101 [safe] `e != 0` materializes ...`. ROW and COL are 1-based (COL counts
characters, as in the tool's output); APPLICABILITY is `safe`, `unsafe` or `display` for a
finding with a fix and `none` for one without. Lines are in the order the engine reports the
findings (by position, then code). MESSAGE is the finding's message verbatim, except that a
backslash, a line feed and a carriage return are written `\\\\`, `\\n` and `\\r`, so every
finding stays on one line and the line reads back to the exact message.

All outputs are computed the way `stridelint check` / `fix` treat a file on disk: the bytes
are decoded like the interpreter does, and fixed text is encoded back with the file's
encoding and newlines. `python -m tests.golden.regenerate` rewrites them (see regenerate.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from stridelint.config import Config, load_config
from stridelint.engine import fix_text, lint_text
from stridelint.findings import Finding
from stridelint.source import decode

FIXES = Path(__file__).resolve().parents[2] / "fixes"

# The files of a case that the engine's output determines, in the order they are checked.
OUTPUT_SUFFIXES = (".expect", ".after.py", ".unsafe.py")
APPLICABILITIES = ("safe", "unsafe", "display", "none")

_EXPECT_LINE = re.compile(
    r"(?P<row>[1-9][0-9]*):(?P<column>[1-9][0-9]*) (?P<code>SL[0-9]{3}) "
    r"\[(?P<applicability>safe|unsafe|display|none)\] (?P<message>.*)"
)
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "n": "\n", "r": "\r"}
_ESCAPED = re.compile(r"(?:[^\\\n\r]|\\[\\nr])*")


@dataclass(frozen=True)
class Case:
    code: str
    name: str
    folder: Path

    def file(self, suffix: str) -> Path:
        return self.folder / f"{self.name}{suffix}"

    @property
    def id(self) -> str:
        return f"{self.code}/{self.name}"

    def config(self) -> Config:
        settings = self.file(".toml")
        if settings.exists():
            return load_config(self.folder, explicit=settings)
        return load_config(self.folder, isolated=True)

    def read(self, suffix: str) -> str | None:
        path = self.file(suffix)
        return path.read_text(encoding="utf-8") if path.exists() else None

    def read_bytes(self, suffix: str) -> bytes | None:
        path = self.file(suffix)
        return path.read_bytes() if path.exists() else None


def cases(root: Path = FIXES) -> list[Case]:
    return [
        Case(before.parent.name, before.name.removesuffix(".before.py"), before.parent)
        for before in sorted(root.glob("SL*/*.before.py"))
    ]


# ---- the .expect format ---------------------------------------------------------------------


def _escape(message: str) -> str:
    return "".join(_ESCAPES.get(char, char) for char in message)


def _unescape(message: str) -> str:
    return re.sub(r"\\(.)", lambda m: _UNESCAPES[m.group(1)], message)


def render_finding(finding: Finding) -> str:
    """One `.expect` line (without its newline) for a finding."""
    applicability = finding.fix.applicability.value if finding.fix is not None else "none"
    return f"{finding.start.row}:{finding.start.column} {finding.code} [{applicability}] " + _escape(
        finding.message
    )


@dataclass(frozen=True)
class Expectation:
    """One parsed `.expect` line."""

    row: int
    column: int
    code: str
    applicability: str
    message: str


def parse_expectation(line: str) -> Expectation:
    """The fields of one `.expect` line; ValueError for a line not in the format."""
    match = _EXPECT_LINE.fullmatch(line)
    if match is None or not _ESCAPED.fullmatch(match["message"]):
        raise ValueError(f"not an .expect line (ROW:COL CODE [APPLICABILITY] MESSAGE): {line!r}")
    return Expectation(
        int(match["row"]), int(match["column"]), match["code"], match["applicability"],
        _unescape(match["message"]),
    )  # fmt: skip


def parse_expect_file(text: str) -> list[Expectation]:
    if text and not text.endswith("\n"):
        raise ValueError("an .expect file ends with a newline")
    return [parse_expectation(line) for line in text.splitlines()]


# ---- what the engine says about a case ------------------------------------------------------


def expectation_lines(source: str, config: Config, path: Path) -> list[str]:
    findings = lint_text(decode(source.encode()), config, path).findings
    return [render_finding(f) for f in findings]


def fixed(source: str, config: Config, path: Path, *, unsafe: bool) -> str:
    return fix_text(decode(source.encode()), config, path, unsafe).text


def outputs(case: Case) -> dict[str, bytes | None]:
    """The exact bytes each of the case's OUTPUT_SUFFIXES files must hold (None: absent)."""
    data = case.read_bytes(".before.py")
    if data is None:
        raise FileNotFoundError(case.file(".before.py"))
    config, path = case.config(), case.file(".before.py")
    source = decode(data)
    findings = lint_text(source, config, path).findings
    expect = "".join(f"{render_finding(f)}\n" for f in findings).encode("utf-8")
    safe = source.encode(fix_text(source, config, path, False).text)
    unsafe = source.encode(fix_text(source, config, path, True).text)
    return {
        ".expect": expect,
        ".after.py": safe if safe != data else None,
        ".unsafe.py": unsafe if unsafe != safe else None,
    }
