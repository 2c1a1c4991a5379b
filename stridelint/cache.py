"""A result cache: findings (fixes included) of a file, keyed by its content, its path relative
to the config root (per-file-ignores depend on it), the effective settings and the version.

Entries are JSON, validated field by field when read: a corrupt, truncated or foreign entry
is a miss, never trusted (and never unpickled). Writes are atomic, so concurrent workers and
interrupted runs cannot leave half an entry behind. A run of many files records the ones with
nothing to report in its file index only (their key with their stat), written once at the
end: an entry file each cost a cold run a tenth of its time (a temporary, a rename).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from stridelint import __version__
from stridelint.findings import Applicability, Edit, Evidence, Finding, Fix, Position

FORMAT = 4  # 4: an edit records whether several fixes may share it
CACHE_DIR_NAME = ".stridelint_cache"


class ResultCache:
    def __init__(self, directory: Path, settings_fingerprint: str) -> None:
        self.directory = directory / f"v{__version__}"
        self.settings = settings_fingerprint

    def key(self, relative_path: str, data: bytes) -> str:
        digest = hashlib.sha256()
        for part in (str(FORMAT), __version__, self.settings, relative_path):
            digest.update(part.encode())
            digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _file_index(self) -> Path:
        digest = hashlib.sha256(f"{FORMAT}\0{self.settings}".encode()).hexdigest()[:16]
        return self.directory / f"files-{digest}.index"

    def file_index(self) -> dict[str, tuple[int, int, str, bool]]:
        """The files last checked without an error, by absolute path: their (mtime_ns, size)
        when they were read, the key of what was read, and whether they had findings. A clean
        file whose stat still says the same is not read again (Ruff's rule too); one whose
        stat changed but whose key did not is clean still (its only record: no entry is
        written for it); one with findings is served from its entry in this process. Any
        damage reads as an empty index."""
        try:
            document = json.loads(self._file_index().read_text(encoding="utf-8"))
            if document.get("format") != FORMAT or document.get("settings") != self.settings:
                return {}
            return {
                _str(path): (_int(mtime), _int(size), _str(key), _bool(flagged))
                for path, (mtime, size, key, flagged) in document["files"].items()
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def store_file_index(self, files: dict[str, tuple[int, int, str, bool]]) -> None:
        document = {"format": FORMAT, "settings": self.settings, "files": files}
        self._write(self._file_index(), document)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def load(self, key: str) -> list[Finding] | None:
        try:
            document = json.loads(self._path(key).read_text(encoding="utf-8"))
            if document.get("key") != key or document.get("format") != FORMAT:
                return None
            return [_finding(item) for item in document["findings"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def store(self, key: str, findings: list[Finding]) -> None:
        document = {"format": FORMAT, "key": key, "findings": [_encode(f) for f in findings]}
        self._write(self._path(key), document)

    def _write(self, path: Path, document: dict[str, Any]) -> None:
        import tempfile  # a write only: a warm run with nothing new never pays for it

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _ignore_folder(self.directory.parent)
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(document, stream, separators=(",", ":"))
            os.replace(temporary, path)
        except OSError:
            pass  # a cache that cannot be written only costs time


def _ignore_folder(directory: Path) -> None:
    """Keep the cache out of version control, as Ruff does."""
    marker = directory / ".gitignore"
    if not marker.exists():
        marker.write_text("# Automatically created by stridelint.\n*\n", encoding="utf-8")


def _position(value: Position) -> list[int]:
    return [value.row, value.column]


def _encode(finding: Finding) -> dict[str, Any]:
    fix = finding.fix
    return {
        "code": finding.code,
        "message": finding.message,
        "start": _position(finding.start),
        "end": _position(finding.end),
        "noqa_row": finding.noqa_row,
        "evidence": [[e.message, _position(e.position)] for e in finding.evidence],
        "low": finding.low,
        "fix": None
        if fix is None
        else {
            "applicability": fix.applicability.value,
            "message": fix.message,
            "edits": [
                [e.start, e.end, e.content, _position(e.start_position),
                 _position(e.end_position), e.shared]
                for e in fix.edits
            ],
        },
    }


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError("not an int")
    return value


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise TypeError("not a bool")
    return value


def _str(value: Any) -> str:
    if type(value) is not str:
        raise TypeError("not a str")
    return value


def _pos(value: Any) -> Position:
    row, column = value
    return Position(_int(row), _int(column))


def _finding(item: dict[str, Any]) -> Finding:
    fix = item["fix"]
    return Finding(
        code=_str(item["code"]),
        message=_str(item["message"]),
        start=_pos(item["start"]),
        end=_pos(item["end"]),
        noqa_row=_int(item["noqa_row"]),
        evidence=tuple(Evidence(_str(m), _pos(p)) for m, p in item["evidence"]),
        low=_bool(item["low"]),
        fix=None
        if fix is None
        else Fix(
            Applicability(fix["applicability"]),
            _str(fix["message"]),
            tuple(
                Edit(_int(s), _int(e), _str(c), _pos(sp), _pos(ep), _bool(shared))
                for s, e, c, sp, ep, shared in fix["edits"]
            ),
        ),
    )
