"""What an `einops.repeat` or `einops.rearrange` pattern does to a tensor's layout.

einops' torch backend runs a pattern as a reshape that splits the input's groups, a
permute, and for `repeat` an `unsqueeze` + `expand` of each new axis (stride 0), then one
reshape to the output's groups. The splits, the permute and the expand are views; the last
reshape copies only when an output group `(a b)` merges a stride-0 axis with another one of
size > 1 (semantics §1.1). So an output with no merged group keeps every stride 0 the input
had and those of its new axes. einops is not a dependency: these facts come from its
backend's source (`TorchBackend.add_axes`, the recipe in `einops.einops`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_AXIS = re.compile(r"\(|\)|\.\.\.|[A-Za-z_][A-Za-z0-9_]*|\d+")


@dataclass(frozen=True)
class Pattern:
    """The axes of each side of `left -> right`, grouped as the parentheses say."""

    left: tuple[tuple[str, ...], ...]
    right: tuple[tuple[str, ...], ...]
    merges: bool  # an output group joins axes (`(h d)`, `(...)`): the last reshape may copy

    @property
    def new_axes(self) -> frozenset[str]:
        """Axes the output has and the input has not: what `repeat` expands (a literal `1`
        adds no elements)."""
        known = {axis for group in self.left for axis in group}
        return frozenset(
            axis for group in self.right for axis in group if axis not in known and axis != "1"
        )


def merged_new_axis(pattern: Pattern) -> tuple[str, str] | None:
    """(a new axis, an axis of the input) that one output group joins, as `(t h w)` joins the
    new `h` and `w` to the input's `t`: einops' last reshape then merges a stride-0 axis with
    one of nonzero stride and copies the repeated tensor whole (unless that axis has size 1)."""
    new = pattern.new_axes
    for group in pattern.right:
        grown = [axis for axis in group if axis in new]
        kept = [axis for axis in group if axis not in new and axis != "1"]
        if grown and kept:
            return grown[0], kept[0]
    return None


def parse(pattern: str) -> Pattern | None:
    """The pattern's two sides, or None when it is not one einops accepts as written."""
    sides = pattern.split("->")
    if len(sides) != 2:
        return None
    left, right = _groups(sides[0]), _groups(sides[1])
    if left is None or right is None:
        return None
    merges = any(
        parenthesized and ("..." in group or len([a for a in group if a != "1"]) > 1)
        for group, parenthesized in right
    )
    return Pattern(tuple(g for g, _ in left), tuple(g for g, _ in right), merges)


def _groups(side: str) -> list[tuple[tuple[str, ...], bool]] | None:
    """Each group of one side, and whether parentheses made it."""
    tokens = _AXIS.findall(side)
    if "".join(tokens) != "".join(side.split()):
        return None  # a character einops does not accept here
    groups: list[tuple[tuple[str, ...], bool]] = []
    current: list[str] | None = None
    for token in tokens:
        if token == "(":
            if current is not None:
                return None
            current = []
        elif token == ")":
            if current is None:
                return None
            groups.append((tuple(current) if current else ("1",), True))  # `()`: size 1
            current = None
        elif current is not None:
            current.append(token)
        else:
            groups.append(((token,), False))
    return groups if current is None else None
