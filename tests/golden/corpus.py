"""The golden autofix corpus under fixes/: discovery and the outputs each case must match.

Layout: fixes/<CODE>/<case>.before.py, <case>.expect (one `row:col CODE` a line; empty for a
negative case), <case>.after.py (safe fixes applied; absent when they change nothing),
<case>.unsafe.py (unsafe fixes too; absent when equal to the safe output), and an optional
<case>.toml holding settings in `stridelint.toml` form.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stridelint.config import Config, load_config
from stridelint.engine import fix_text, lint_text
from stridelint.source import decode

FIXES = Path(__file__).resolve().parents[2] / "fixes"


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


def cases() -> list[Case]:
    return [
        Case(before.parent.name, before.name.removesuffix(".before.py"), before.parent)
        for before in sorted(FIXES.glob("SL*/*.before.py"))
    ]


def expectation_lines(source: str, config: Config, path: Path) -> list[str]:
    findings = lint_text(decode(source.encode()), config, path).findings
    return [f"{f.start.row}:{f.start.column} {f.code}" for f in findings]


def fixed(source: str, config: Config, path: Path, *, unsafe: bool) -> str:
    return fix_text(decode(source.encode()), config, path, unsafe).text
