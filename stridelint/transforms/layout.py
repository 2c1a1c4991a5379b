"""Fit the code a fix writes into the project's line length, the way a formatter would.

A fix describes each edit as pieces: plain text, and the *units* a formatter may break,
`Bracketed` code it writes whole (a helper call, `tuple(... for ...)`) and `Wrapped` user
code (a reduction the fix multiplies by its repeat count). Every unit starts flat. While a
line holding part of a unit is longer than the limit, the outermost unit on that line is
broken one step further where that shortens the long lines, as Black and Ruff's formatter
break the outermost brackets first:
flat, then its content on a line of its own inside the brackets (a wrapped reduction gains
parentheses), then one part a line (split at the rescale's operator, or after each
argument with a trailing comma). Code the fix did not write is copied unchanged; a line
that is too long for reasons of its own stays so. Width ignores a trailing pragma comment
(`# noqa`, `# type:`, `# stridelint:`), as Ruff's E501 does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Characters no source the fixes touch may hold (the fixes' own placeholders use the
# lowest of them); unit markers are taken from the rest.
RESERVED = re.compile("[\ue000-\ue9ff]")
_STARTS, _ENDS = 0xE200, 0xE600  # unit i is marked by chr(_STARTS + i) ... chr(_ENDS + i)
_PRAGMA = re.compile(r"\s+#\s*(noqa|type:|stridelint:|pyright:|fmt:|pragma)\b.*$")
_FLAT, _BROKEN, _SPLIT, _DEEP = 0, 1, 2, 3
_PARENTHESIZED_FACTOR = re.compile(r" (\S+) \((.*)\)")


@dataclass(eq=False)
class Bracketed:
    """Code the fix writes between brackets: `opening` and `closing` stay on the first and
    last line; broken, the parts go on one line of their own inside, joined by `separator`;
    split, one part a line, ended by `trailing` (a magic trailing comma, or none)."""

    opening: str
    parts: list[str]
    closing: str
    separator: str = ", "
    trailing: str = ","
    optional: bool = False  # the brackets are written only when broken (`a, b = ...`)


@dataclass(eq=False)
class Wrapped:
    """User code the fix rescales: `tail` (" * factor") follows it, inside parentheses when
    `parenthesized` (else where the operator binds looser anyway). Broken, it gets
    parentheses, unless it is `tight` (the only thing inside the user's brackets, as in
    `int(...)`), where those brackets serve; split, the tail's operator starts a line of its
    own; split deeper, a parenthesized factor is broken inside its parentheses too."""

    parenthesized: bool
    tail: str
    tight: bool = False


@dataclass(frozen=True)
class Opens:
    unit: Wrapped


@dataclass(frozen=True)
class Closes:
    unit: Wrapped


Piece = str | Bracketed | Opens | Closes


@dataclass
class Spec:
    """Replace source[start:end] with the pieces, laid out."""

    start: int
    end: int
    pieces: list[Piece]


def flat(pieces: list[Piece]) -> str:
    """The pieces on one line each, as written before any fitting."""
    return "".join(_render(p, _FLAT, "", "", "\n") for p in pieces)


def fits(text: str, line_length: int) -> bool:
    return all(_width(line) <= line_length for line in text.splitlines())


def lay_out(
    text: str, specs: list[Spec], line_length: int, step: str, newline: str
) -> list[tuple[int, int, str]]:
    """(start, end, content) for each spec, in order, with its units broken as far as the
    lines that hold them need."""
    units = _units(specs)
    layouts = {id(u): _FLAT for u in units}
    if not units:
        return [(s.start, s.end, "".join(p for p in s.pieces if isinstance(p, str))) for s in specs]
    region = _region(text, specs, newline)
    indents, rendered = _settle(text, region, specs, units, layouts, step, newline)
    while True:
        excess = _excess(rendered, line_length)
        for unit in _candidates(rendered, units, layouts, line_length):
            layouts[id(unit)] += 1
            trial = _settle(text, region, specs, units, layouts, step, newline)
            if _excess(trial[1], line_length) < excess:
                indents, rendered = trial
                break
            layouts[id(unit)] -= 1  # breaking it does not shorten the long lines
        else:
            break
    # Breaking one unit may have made another's break needless (the formatter would not
    # have broken it): undo each break that no line needs.
    for unit in reversed(units):
        while layouts[id(unit)] > _FLAT:
            layouts[id(unit)] -= 1
            trial = _settle(text, region, specs, units, layouts, step, newline)
            if _excess(trial[1], line_length) > _excess(rendered, line_length):
                layouts[id(unit)] += 1
                break
            indents, rendered = trial
    return [
        (s.start, s.end, _content(s, units, layouts, indents, step, newline, marked=False))
        for s in specs
    ]


# ---- rendering ---------------------------------------------------------------------------


def _units(specs: list[Spec]) -> list[Bracketed | Wrapped]:
    found: dict[int, Bracketed | Wrapped] = {}
    for spec in specs:
        for piece in spec.pieces:
            unit = piece.unit if isinstance(piece, (Opens, Closes)) else piece
            if isinstance(unit, (Bracketed, Wrapped)):
                found.setdefault(id(unit), unit)
    return list(found.values())


def _region(text: str, specs: list[Spec], newline: str) -> tuple[int, int]:
    """The whole lines the specs touch."""
    start = min(s.start for s in specs)
    end = max(s.end for s in specs)
    start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return start, len(text) if line_end < 0 else line_end


def _settle(text, region, specs, units, layouts, step, newline):
    """Render the region until every broken unit is indented from the line it starts on
    (an outer unit's layout moves the lines an inner one starts on)."""
    indents = {id(u): "" for u in units}
    for _ in range(len(units) + 2):
        rendered = _apply(text, region, specs, units, layouts, indents, step, newline)
        found = {id(u): _indent_at(rendered, chr(_STARTS + i)) for i, u in enumerate(units)}
        if found == indents:
            break
        indents = found
    return indents, rendered


def _apply(text, region, specs, units, layouts, indents, step, newline) -> str:
    start, end = region
    pieces, cursor = [], start
    for spec in sorted(specs, key=lambda s: (s.start, s.end)):
        pieces += [text[cursor : spec.start],
                   _content(spec, units, layouts, indents, step, newline, marked=True)]  # fmt: skip
        cursor = spec.end
    pieces.append(text[cursor:end])
    return "".join(pieces)


def _content(spec, units, layouts, indents, step, newline, *, marked: bool) -> str:
    numbers = {id(u): i for i, u in enumerate(units)}
    out = []
    for piece in spec.pieces:
        unit = piece.unit if isinstance(piece, (Opens, Closes)) else piece
        if isinstance(unit, str):
            out.append(unit)
            continue
        number = numbers[id(unit)]
        text = _render(piece, layouts[id(unit)], indents[id(unit)], step, newline)
        if marked and not isinstance(piece, Closes):
            text = chr(_STARTS + number) + text
        if marked and not isinstance(piece, Opens):
            text += chr(_ENDS + number)
        out.append(text)
    return "".join(out)


def _render(piece: Piece, layout: int, indent: str, step: str, newline: str) -> str:
    if isinstance(piece, str):
        return piece
    inner, outer = newline + indent + step, newline + indent
    if isinstance(piece, Bracketed):
        if layout == _FLAT:
            body = piece.separator.join(piece.parts)
            return body if piece.optional else piece.opening + body + piece.closing
        if layout == _BROKEN:
            body = piece.separator.join(piece.parts)
        else:
            body = (piece.separator.rstrip() + inner).join(piece.parts) + piece.trailing
        return piece.opening + inner + body + outer + piece.closing
    unit = piece.unit
    parentheses = unit.parenthesized or not unit.tight
    if isinstance(piece, Opens):
        if layout == _FLAT:
            return "(" if unit.parenthesized else ""
        return ("(" if parentheses else "") + inner
    closing = outer + (")" if parentheses else "")
    if layout == _FLAT:
        return unit.tail + (")" if unit.parenthesized else "")
    if layout == _BROKEN:
        return unit.tail + closing
    if layout == _SPLIT:
        return inner + unit.tail.lstrip() + closing
    operator, factor = _PARENTHESIZED_FACTOR.fullmatch(unit.tail).groups()
    return f"{inner}{operator} ({inner}{step}{factor}{inner})" + closing


def _indent_at(rendered: str, marker: str) -> str:
    position = rendered.find(marker)
    line = rendered[rendered.rfind("\n", 0, position) + 1 : position]
    line = RESERVED.sub("", line)
    return line[: len(line) - len(line.lstrip(" \t"))]


# ---- choosing what to break --------------------------------------------------------------


def _excess(rendered: str, line_length: int) -> int:
    widths = (_width(RESERVED.sub("", line)) for line in rendered.split("\n"))
    return sum(max(0, width - line_length) for width in widths)


def _candidates(rendered: str, units, layouts, line_length: int):
    """The units on the long lines that can break further, line by line: outermost first,
    and of units side by side the last first (a formatter splits at the last brackets)."""
    spans = []
    for i, unit in enumerate(units):
        spans.append((rendered.find(chr(_STARTS + i)), rendered.find(chr(_ENDS + i)), unit))
    offset = 0
    for line in rendered.split("\n"):
        line_start, line_end = offset, offset + len(line)
        offset = line_end + 1
        if _width(RESERVED.sub("", line)) <= line_length:
            continue
        covering = [s for s in spans if s[0] <= line_end and s[1] >= line_start]
        depth = {id(s[2]): sum(o[0] < s[0] and s[1] < o[1] for o in covering) for s in covering}
        covering.sort(key=lambda s: (depth[id(s[2])], -s[0]))
        for _, _, unit in covering:
            if layouts[id(unit)] < _deepest(unit):
                yield unit


def _deepest(unit: Bracketed | Wrapped) -> int:
    if isinstance(unit, Bracketed):
        return _SPLIT if len(unit.parts) > 1 else _BROKEN
    return _DEEP if _PARENTHESIZED_FACTOR.fullmatch(unit.tail) else _SPLIT


def _width(line: str) -> int:
    return len(_PRAGMA.sub("", line.rstrip("\r")))
