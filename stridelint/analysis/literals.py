"""What the code spells out literally: an integer, and what an entry of a subscript is.

Which dims an expand broadcasts and which dims an item assignment keeps are read from such
literals (`x[:, None].expand(n, -1)`, `x[0, ...] = v`); nothing here follows names.
"""

from __future__ import annotations

import libcst as cst

SLICE = "slice"  # a bare `:`: keeps the dim as it is
RANGE = "range"  # a slice with bounds or a step: keeps the dim, maybe shorter
ELLIPSIS = "ellipsis"  # `...`: every dim it stands for is kept
NEW_DIM = "none"  # `None`: a new size-1 dim
INTEGER = "int"  # a literal integer: removes the dim
OTHER = "other"  # anything else: a name, an expression, a tensor


def is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def literal_int(node: cst.BaseExpression) -> int | None:
    """The value of `3` or `-1`; None for anything else."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.evaluated_value)
    return None


def call_sizes(call: cst.Call) -> list[cst.BaseExpression] | None:
    """The sizes `view`/`reshape`/`expand` are given, as separate arguments or one tuple or
    list; None when a star or a keyword hides them."""
    if any(a.star or a.keyword is not None for a in call.args):
        return None
    sizes = [a.value for a in call.args]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        elements = sizes[0].elements
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        sizes = [e.value for e in elements]
    return sizes


def dim_index(dim: int | None, rank: int) -> int | None:
    """A dim of a tensor of `rank` dims counted from 0 (`-1` is `rank - 1`); None when it is
    unknown or out of range."""
    return dim % rank if dim is not None and -rank <= dim < rank else None


def index_kind(entry: cst.BaseSlice) -> str:
    """What one entry of a subscript does to the dims, as far as the code spells it out:
    SLICE, RANGE, ELLIPSIS, NEW_DIM, INTEGER, or OTHER."""
    if isinstance(entry, cst.Slice):
        bare = entry.lower is None and entry.upper is None and entry.step is None
        return SLICE if bare else RANGE
    value = entry.value
    if isinstance(value, cst.Ellipsis):
        return ELLIPSIS
    if isinstance(value, cst.Name) and value.value == "None":
        return NEW_DIM
    if literal_int(value) is not None:
        return INTEGER
    return OTHER
