"""Bytes <-> text for Python files, keeping what a fix must write back unchanged.

A file is decoded the way Python decodes it (PEP 263 cookie, UTF-8 BOM), and encoded back
with the same encoding, BOM and newline style, so a fix never changes a byte outside the
span it edits.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from dataclasses import dataclass
from functools import cached_property

from stridelint.findings import Edit, Position

_NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """The bytes are not a Python source file we can decode (one-line message)."""


@dataclass
class SourceText:
    text: str
    encoding: str = "utf-8"  # "utf-8-sig" when the file starts with a BOM

    @cached_property
    def line_starts(self) -> list[int]:
        """Where each line starts; built on first use (most files never need a position)."""
        return [0] + [m.end() for m in _NEWLINE.finditer(self.text)]

    @property
    def newline(self) -> str:
        match = _NEWLINE.search(self.text)
        return match.group() if match else "\n"

    def offset(self, row: int, column0: int) -> int:
        """Character offset of a 1-based row and 0-based column (LibCST's positions)."""
        return self.line_starts[row - 1] + column0

    def position(self, offset: int) -> Position:
        row = bisect.bisect_right(self.line_starts, offset)
        return Position(row, offset - self.line_starts[row - 1] + 1)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def edit(self, start: int, end: int, content: str, *, shared: bool = False) -> Edit:
        return Edit(start, end, content, self.position(start), self.position(end), shared)

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)


def decode(data: bytes) -> SourceText:
    """Decode like the interpreter; raise SourceError with a one-line reason and the cure."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:  # bad bytes in the first two lines, or a bad cookie
        raise SourceError(_encoding_problem(data, error.msg)) from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise SourceError(_undecodable(data, encoding, error.start)) from None
    return SourceText(text, encoding)


def _encoding_problem(data: bytes, reason: str) -> str:
    unknown = re.match(r"unknown encoding(?: for [^:]*)?: (.*)", reason)
    if unknown:
        return f"unknown encoding {unknown.group(1)!r} in its coding declaration (PEP 263)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:  # no cookie, and not UTF-8: what the interpreter rejects
        return _undecodable(data, "utf-8", error.start)
    return f"cannot determine its encoding: {reason}"


def _undecodable(data: bytes, encoding: str, offset: int) -> str:
    row = data.count(b"\n", 0, offset) + 1
    where = f"byte 0x{data[offset]:02X} on line {row}"
    if encoding not in ("utf-8", "utf-8-sig"):
        return f"not valid {encoding}, the encoding its coding declaration names ({where})"
    return (
        f"not valid UTF-8 ({where}): save it as UTF-8, or declare its encoding on line 1 "
        "or 2, e.g. `# -*- coding: latin-1 -*-` (PEP 263)"
    )


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits (any order) to text."""
    pieces = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        pieces.append(text[cursor : edit.start])
        pieces.append(edit.content)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces)
