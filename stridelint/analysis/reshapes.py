"""Whether a `reshape`/`flatten`/`ravel` of a broadcast tensor must copy it.

A reshape is a view when it only splits dims, merges size-1 ones or merges stride-0 dims
with each other; merging a stride-0 dim with a dim of nonzero stride needs a copy of the full logical size (no single stride can
describe the merged dim; semantics §1.1). Decided from the sizes the code spells out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis import literals, provenance
from stridelint.analysis.bindings import reaching_assignment

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import LayoutOp
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.provenance import ExpandedDims


def merge_of(facts: ModuleFacts, op: LayoutOp) -> str | None:
    """A phrase naming the merge, when the code shows one that must copy; None otherwise."""
    dims = provenance.dims_of(facts, op.operand, op.statement)
    call = op.call
    if op.name == "ravel" or (op.name == "flatten" and not call.args) or _reshape_to_1d(
        facts, call, op.statement
    ):
        if dims is not None:
            larger = set(range(len(dims.sizes))) - dims.unit
            if len(larger) < 2 or larger <= dims.broadcast:
                return None  # one dim of size > 1 at most, or only stride-0 ones: a view
        return "flattens a stride-0 dim together with the others"
    if dims is None:
        return None
    count = len(dims.sizes)
    if op.name == "flatten":
        bounds = _flatten_bounds(call)
        if bounds is None:
            return None
        start, end = (b % count if -count <= b < count else None for b in bounds)
        if start is None or end is None:
            return None
        groups = [tuple(range(start, end + 1))]
    else:
        groups = _reshape_groups(facts, call, dims)
        if groups is None:
            return None
    for group in groups:
        broadcast = [d for d in group if d in dims.broadcast]
        others = [d for d in group if d not in dims.broadcast and d not in dims.unit]
        if broadcast and others:
            return (
                f"merges the stride-0 dim `{dims.sizes[broadcast[0]]}` with "
                f"`{dims.sizes[others[0]]}`"
            )
    return None


def _reshape_to_1d(facts: ModuleFacts, call: cst.Call, statement: cst.CSTNode | None) -> bool:
    """`reshape(-1)`, `reshape(n * m)`, `reshape(rows)` with `rows = n * m`: one size that is
    a number, so a 1-D result. A single name holding a whole shape is not one."""
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "reshape":
        return False
    sizes = _sizes(call)
    if sizes is None or len(sizes) != 1:
        return False
    size = sizes[0]
    if isinstance(size, cst.Name):
        found = reaching_assignment(facts, size, statement)
        if found is None:
            return False
        size = found[0].value
    return _is_number(size)


def _is_number(node: cst.BaseExpression) -> bool:
    """A size spelled as one number: a literal, arithmetic, `len(...)` or `x.numel()`."""
    if literals.literal_int(node) is not None or isinstance(node, cst.BinaryOperation):
        return True
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Name):
            return func.value == "len"
        return isinstance(func, cst.Attribute) and func.attr.value == "numel"
    return False


def _sizes(call: cst.Call) -> list[cst.BaseExpression] | None:
    if any(a.star or a.keyword is not None for a in call.args):
        return None
    sizes = [a.value for a in call.args]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        elements = sizes[0].elements
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        sizes = [e.value for e in elements]
    return sizes


def _flatten_bounds(call: cst.Call) -> tuple[int, int] | None:
    bounds = [0, -1]
    position = 0
    for arg in call.args:
        if arg.keyword is not None:
            index = {"start_dim": 0, "end_dim": 1}.get(arg.keyword.value)
        else:
            index, position = position, position + 1
        value = literals.literal_int(arg.value)
        if index is None or index > 1 or value is None:
            return None
        bounds[index] = value
    return bounds[0], bounds[1]


def _reshape_groups(
    facts: ModuleFacts, call: cst.Call, dims: ExpandedDims
) -> list[tuple[int, ...]] | None:
    """Which expand dims each new size covers: a size equal to an expand size keeps that dim,
    a product of consecutive expand sizes (`h * g`) merges them; a final -1 takes the rest."""
    sizes = _sizes(call)
    if sizes is None:
        return None
    groups = []
    cursor = 0
    for index, size in enumerate(sizes):
        if literals.literal_int(size) == -1 and index == len(sizes) - 1:
            groups.append(tuple(range(cursor, len(dims.sizes))))
            cursor = len(dims.sizes)
            continue
        factors = [facts.text_of(f) for f in _factors(size)]
        if list(dims.sizes[cursor : cursor + len(factors)]) == factors:
            groups.append(tuple(range(cursor, cursor + len(factors))))
            cursor += len(factors)
        elif factors == ["1"]:
            continue  # a new size-1 dim
        else:
            return None
    return groups if cursor == len(dims.sizes) else None


def _factors(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Multiply)
        and not node.lpar
    ):
        return _factors(node.left) + _factors(node.right)
    return [node]
