"""Whether a `reshape`/`flatten`/`ravel` of a broadcast tensor must copy it.

A reshape is a view when it only splits dims, merges size-1 ones or merges stride-0 dims
with each other; merging a stride-0 dim with a dim of nonzero stride needs a copy of the
full logical size (no single stride can describe the merged dim; semantics §1.1). Decided
from the sizes the code spells out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis import literals, provenance
from stridelint.analysis.bindings import possible_assignments, reaching_assignment

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import LayoutOp
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.provenance import ExpandedDims


def merge_of(facts: ModuleFacts, op: LayoutOp) -> str | None:
    """A phrase naming the merge, when the code shows one that must copy; None otherwise."""
    if op.merged is not None:
        return op.merged
    dims = _known_dims(facts, op.operand, op.statement)
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
        start, end = (literals.dim_index(b, count) for b in bounds)
        if start is None or end is None:
            return None
        groups = [tuple(range(start, end + 1))]
    else:
        groups = _reshape_groups(facts, call, dims)
        if groups is None:
            return _merged_between_kept_dims(facts, call, dims)
    for group in groups:
        broadcast = [d for d in group if d in dims.broadcast]
        others = [d for d in group if d not in dims.broadcast and d not in dims.unit]
        if broadcast and others:
            other = dims.sizes[others[0]]
            return f"merges the stride-0 dim `{dims.sizes[broadcast[0]]}` with " + (
                f"`{other}`" if other != "-1" else "a strided dim"
            )
    return None


def _merged_between_kept_dims(
    facts: ModuleFacts, call: cst.Call, dims: ExpandedDims
) -> str | None:
    """`k[:, :, None].expand(-1, -1, g, -1, -1).reshape(b, h, s, d)`, `e.unsqueeze(1)
    .expand(b, s, -1).reshape(-1, self.hidden)`: sizes spelled otherwise than the expand's, so
    no size lines up, but the result has one dim fewer and the one stride-0 dim, between two
    dims that are not (kept from the source, or spelled and not inserted), has a size that is
    no size or factor of it. That dim is merged, then, with a neighbour: a copy unless the
    neighbour has size 1."""
    sizes = literals.call_sizes(call)
    if sizes is None or not 2 <= len(sizes) == len(dims.sizes) - 1 or len(dims.broadcast) != 1:
        return None
    (broadcast,) = dims.broadcast
    size = dims.sizes[broadcast]
    if any(facts.text_of(f) == size for s in sizes for f in _factors(s)):
        return None
    neighbours = (broadcast - 1, broadcast + 1)
    if not all(
        0 <= d < len(dims.sizes) and d not in dims.unit and d not in dims.inserted
        for d in neighbours
    ):
        return None  # at an end, it may stay whole while a size-equal name takes its place
    return f"merges the stride-0 dim `{size}` with a strided dim"


def _known_dims(
    facts: ModuleFacts, operand: cst.BaseExpression, statement: cst.CSTNode | None
) -> ExpandedDims | None:
    """The dims of the expand `operand` comes from (inline, or the one a name certainly
    reads; through a transpose of it), with the sizes the code spells elsewhere filled in: an
    `expand_as(other)` takes `other`'s spelled shape, and a kept `-1` takes the size the
    expanded tensor was given."""
    call, at = operand, statement
    if isinstance(operand, cst.Name):
        found = reaching_assignment(facts, operand, statement)
        if found is None:
            found = _the_one_expand(facts, operand, statement)
        if found is None:
            return None
        call, at = found[0].value, found[1]
    transposed = provenance.transpose_parts(facts, call)
    if transposed is not None:  # `e.expand(s, b, n).transpose(0, 1)`: the expand's dims, swapped
        inner, swapped = transposed
        return provenance.transposed_dims(_known_dims(facts, inner, at), swapped)
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    if call.func.attr.value == "expand_as":
        target = _spelled_shape(facts, call.args[0].value, at) if len(call.args) == 1 else None
        if target is None or any(literals.literal_int(s) == -1 for s in target):
            return None  # a `-1` there is the target's own size, not one the expand keeps
        dims = provenance.expanded_dims(facts, call, target)
    else:
        dims = provenance.expanded_dims(facts, call)
    if dims is None:
        return None
    source = _spelled_shape(facts, call.func.value, at)
    if source is None or len(source) != len(dims.sizes):
        return dims
    nodes = tuple(
        source[d] if d in dims.kept and size == "-1" else node
        for d, (size, node) in enumerate(zip(dims.sizes, dims.nodes))
    )
    return replace(dims, nodes=nodes)


def _the_one_expand(
    facts: ModuleFacts, name: cst.Name, statement: cst.CSTNode | None
) -> tuple[cst.Assign, cst.CSTNode] | None:
    """Of the assignments `name` may read (`token = e.expand(b, s, -1)`, then rebound on one
    branch only), the one expand among them: where the load reads it, the reshape copies."""
    expands = [
        (assign, at)
        for assign, at in possible_assignments(facts, name, statement)
        if provenance.expanded_dims(facts, assign.value) is not None
    ]
    return expands[0] if len(expands) == 1 else None


def _spelled_shape(
    facts: ModuleFacts, node: cst.BaseExpression, statement: cst.CSTNode | None
) -> list[cst.BaseExpression] | None:
    """The sizes of a tensor made by `.reshape(a, b, ...)` / `.view(a, b, ...)` /
    `.expand(a, b, ...)` with two sizes or more (one name may be a whole shape or a dtype),
    inline or through the one assignment a name certainly reads."""
    if isinstance(node, cst.Name):
        found = reaching_assignment(facts, node, statement)
        if found is None:
            return None
        node = found[0].value
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return None
    if node.func.attr.value not in ("reshape", "view", "expand"):
        return None
    sizes = literals.call_sizes(node)
    return sizes if sizes is not None and len(sizes) >= 2 else None


def _reshape_to_1d(facts: ModuleFacts, call: cst.Call, statement: cst.CSTNode | None) -> bool:
    """`reshape(-1)`, `reshape(n * m)`, `reshape(rows)` with `rows = n * m`: one size that is
    a number, so a 1-D result. A single name holding a whole shape is not one."""
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "reshape":
        return False
    sizes = literals.call_sizes(call)
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
    a product of consecutive expand sizes (`h * g`) merges them, a literal 1 is a new size-1
    dim. Matched from both ends; one size left over (a `-1`, or any size when the call gives
    two or more, all then numbers) covers the dims between, as the element count requires."""
    sizes = literals.call_sizes(call)
    if sizes is None:
        return None
    count = len(dims.sizes)
    front: list[tuple[int, ...]] = []
    cursor, index = 0, 0
    while index < len(sizes):
        matched = _match(facts, sizes[index], dims, cursor)
        if matched is None:
            break
        front.extend([matched] if matched else [])
        cursor += len(matched)
        index += 1
    back: list[tuple[int, ...]] = []
    end, last = count, len(sizes)
    while last > index:
        matched = _match(facts, sizes[last - 1], dims, end, backwards=True)
        if matched is None:
            break
        back[:0] = [matched] if matched else []
        end -= len(matched)
        last -= 1
    if last == index:  # every size matched
        return front + back if cursor == end else None
    if last - index > 1 or cursor > end:
        return None
    if literals.literal_int(sizes[index]) != -1 and len(sizes) < 2:
        return None  # one name may hold a whole shape
    return front + [tuple(range(cursor, end))] + back


def _match(
    facts: ModuleFacts,
    size: cst.BaseExpression,
    dims: ExpandedDims,
    at: int,
    *,
    backwards: bool = False,
) -> tuple[int, ...] | None:
    """The dims `size` covers starting at `at` (ending there when backwards): () for a new
    size-1 dim, None when its factors are not the expand sizes there."""
    if literals.literal_int(size) == -1:
        return None
    factors = [facts.text_of(f) for f in _factors(size)]
    span = range(at - len(factors), at) if backwards else range(at, at + len(factors))
    inside = span.start >= 0 and span.stop <= len(dims.sizes)
    if inside and [dims.sizes[d] for d in span] == factors and "-1" not in factors:
        return tuple(span)
    return () if factors == ["1"] else None


def _factors(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Multiply)
        and not node.lpar
    ):
        return _factors(node.left) + _factors(node.right)
    return [node]
