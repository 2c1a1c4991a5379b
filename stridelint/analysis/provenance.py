"""Where a broadcast tensor comes from: the expand that made it, the tensor before that
expand, and which dims the expand made stride 0.

Hoisting an op before the expand needs the expand as code (`<pre>.expand(...)`) and proof
that `<pre>` still means the same tensor where the op is; telling whether a reshape must copy
(SL301) or what a write through an index does (SL401) needs the stride-0 dims (semantics
§1.1, §1.3). Both are read from the code that builds the expanded tensor, inline or through
the one assignment a name certainly reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.bindings import bound_around, reaching_assignment, statement_of
from stridelint.analysis.literals import (
    ELLIPSIS,
    INTEGER,
    NEW_DIM,
    OTHER,
    RANGE,
    SLICE,
    call_sizes,
    dim_index,
    index_kind,
    literal_int,
)
from stridelint.analysis.purity import is_pure, may_change
from stridelint.analysis.spans import operand_code
from stridelint.analysis.tree import walk

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts

# ---- the expand an operand comes from -----------------------------------------------------


@dataclass(frozen=True)
class ExpandSource:
    """A broadcast operand, seen as `<pre>` followed by an expand."""

    pre_node: cst.BaseExpression  # the tensor before the expand
    pre: str  # its code, parenthesized unless an atom
    suffix: str  # `.expand(b, h)`, `.broadcast_to(s)`, or `.expand_as(e)` for a name `e`
    call: cst.Call  # the expand
    name: str | None  # the name the operand loads, when it was bound to the expand earlier


def expand_parts(
    facts: ModuleFacts, call: cst.BaseExpression
) -> tuple[cst.BaseExpression, str] | None:
    """(tensor before the expand, the expand as a method suffix) for `x.expand(...)`,
    `x.expand_as(y)`, `x.broadcast_to(s)` and `torch.broadcast_to(x, s)`."""
    if not isinstance(call, cst.Call):
        return None
    func = call.func
    qualified = facts.imports.resolve(func)
    if (
        isinstance(func, cst.Attribute)
        and qualified is None
        and func.attr.value in torch_ops.BROADCAST_METHODS
        and not any(a.keyword is not None and a.keyword.value != "size" for a in call.args)
    ):
        arguments = facts.text_of(call)[facts.span(func)[1] - facts.span(call)[0] :].lstrip()
        return func.value, f".{func.attr.value}{arguments}"
    if qualified in torch_ops.BROADCAST_FUNCTIONS:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) == 2 and len(call.args) == 2:
            return positional[0].value, f".expand({facts.text_of(positional[1].value)})"
    return None


def expand_source(
    facts: ModuleFacts, operand: cst.BaseExpression, statement: cst.CSTNode | None
) -> ExpandSource | None:
    """How to write `operand` as `<pre>.expand(...)` at `statement`: an inline expand, or a
    name bound to one earlier whose pre-expand expression still means the same there (its
    names are not rebound or written in between, and re-evaluating it has no effects)."""
    parts = expand_parts(facts, operand)
    if parts is not None:
        pre, suffix = parts
        return ExpandSource(pre, operand_code(facts, pre), suffix, operand, None)
    if not isinstance(operand, cst.Name):
        return None
    found = reaching_assignment(facts, operand, statement)
    if found is None:
        return None
    assign, _, between = found
    parts = expand_parts(facts, assign.value)
    if parts is None:
        return None
    pre, _ = parts
    names = {n.value for n in walk(pre) if isinstance(n, cst.Name)}
    if operand.value in names or not is_pure(facts, pre):
        return None  # `m = m[:, None].expand(...)`: `m[:, None]` now means something else
    if any(may_change(facts, s, names | {operand.value}) for s in between):
        return None
    if bound_around(facts, operand, statement) & names:
        return None  # `[1.0 - e for x in xs]`: `x` is the loop's own there
    return ExpandSource(
        pre, operand_code(facts, pre), f".expand_as({operand.value})", assign.value, operand.value
    )


# ---- which dims an expand makes stride 0 --------------------------------------------------


@dataclass(frozen=True)
class ExpandedDims:
    """What the code says about the dims of `x.expand(s0, s1, ...)`."""

    nodes: tuple[cst.BaseExpression, ...]  # each size
    broadcast: frozenset[int]  # size-1 dims inserted by `[:, None]`/`unsqueeze` and grown
    kept: frozenset[int]  # dims that keep the source's own stride (`-1`, or a `:` entry)
    unit: frozenset[int]  # dims of size 1 after it: a literal 1, or a `-1` on an inserted dim
    facts: ModuleFacts = field(compare=False, repr=False)
    inserted: frozenset[int] = frozenset()  # dims the receiver's indexing or unsqueezes added
    # the sizes a literal `view`/`reshape` of the same rank gives the receiver (`m.view(b, 1, n)`)
    viewed: tuple[cst.BaseExpression, ...] = ()

    @cached_property
    def sizes(self) -> tuple[str, ...]:
        """The code of each size, read when asked: the first text of a module costs a
        code generation (positions.py), and the dataflow asks every expand's dims."""
        return tuple(self.facts.text_of(s) for s in self.nodes)

    def decimal(self, dim: int) -> int | None:
        """The size of `dim` when the code spells it in decimal digits (`3`, not `0x3`),
        else None: the same as reading its code, without it (an Integer's code is its
        value, parentheses aside; no other expression's code is all digits)."""
        node = self.nodes[dim]
        return int(node.value) if isinstance(node, cst.Integer) and node.value.isdigit() else None

    @property
    def candidates(self) -> frozenset[int]:
        """The dims the expand may make stride 0: all but the kept and the size-1 ones."""
        return frozenset(range(len(self.nodes))) - self.kept - self.unit


def expanded_dims(
    facts: ModuleFacts,
    call: cst.BaseExpression,
    target: Sequence[cst.BaseExpression] | None = None,
) -> ExpandedDims | None:
    """Read the dims of a literal expand. `x[:, None].expand(b, n, s)` broadcasts dim 1. The
    entries of the subscript are lined up with the first sizes (the last ones after an
    `...`), as they are whenever the expand adds no leading dims. `target`: the sizes of
    the tensor an `expand_as` names, where the caller knows them."""
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == ("expand" if target is None else "expand_as")
        and facts.imports.resolve(call.func) is None
    ):
        return None
    sizes = [a.value for a in call.args] if target is None else list(target)
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        sizes = [e.value for e in sizes[0].elements]
    elif len(sizes) == 1 and literal_int(sizes[0]) is None:
        return None  # `x.expand(shape)` or `x.expand(n)`: the code does not say which
    if not sizes or any(a.star or a.keyword for a in call.args) or any(
        isinstance(s, cst.StarredElement) for s in sizes
    ):
        return None
    count = len(sizes)
    kept = {i for i, s in enumerate(sizes) if literal_int(s) == -1}
    unit = {i for i, s in enumerate(sizes) if literal_int(s) == 1}
    inserted: set[int] = set()
    viewed: tuple[cst.BaseExpression, ...] = ()
    source = _shaping_source(facts, call.func.value, call)
    if isinstance(source, cst.Subscript):
        placed = _placed_kinds(source)
        if placed is None:
            return ExpandedDims(tuple(sizes), frozenset(), frozenset(kept), frozenset(unit), facts)
        if ELLIPSIS in placed:
            cut = placed.index(ELLIPSIS)
            before, after = placed[:cut], placed[cut + 1 :]
            positions = list(enumerate(before)) + [
                (count - len(after) + i, k) for i, k in enumerate(after)
            ]
            kept |= set(range(len(before), count - len(after)))  # the source's dims, via `...`
        else:
            positions = list(enumerate(placed))
            kept |= set(range(len(placed), count))  # the source's trailing dims
        for position, kind in positions:
            if not 0 <= position < count:
                return None
            if kind == NEW_DIM:
                inserted.add(position)
            elif kind == SLICE:
                kept.add(position)
    elif (unsqueezed := _unsqueezed_dims(source)) is not None:
        placed = _inserted_positions(unsqueezed, count)
        if placed is None:
            return None
        inserted |= placed
    else:
        view_sizes = _literal_view_sizes(facts, source)
        if view_sizes is not None and len(view_sizes) == count:  # `v.view(-1, 1).expand(n, m)`
            viewed = tuple(call_sizes(source))  # type: ignore[arg-type]
            inserted |= {i for i, size in enumerate(view_sizes) if size == 1}  # dim 1 is new
            # a `-1`, or a literal size of 2 or more, which no expand can grow
            kept |= {i for i, size in enumerate(view_sizes) if size == -1 or (size or 0) >= 2}
    broadcast = frozenset(d for d in inserted if d not in kept and d not in unit)
    kept_dims = frozenset(kept - broadcast)
    unit |= inserted & kept_dims  # a `-1` keeps an inserted dim at size 1
    dims = ExpandedDims(
        tuple(sizes), broadcast, kept_dims, frozenset(unit), facts, frozenset(inserted), viewed
    )
    if not broadcast and len(dims.candidates) == 1:
        # `row.expand(n, -1)`: the expand broadcasts something, and only dim 0 can be it
        dims = replace(dims, broadcast=dims.candidates)
    return dims


def _unsqueezed_dims(source: cst.BaseExpression) -> list[int] | None:
    """The literal dims of a chain of `unsqueeze` calls, innermost first
    (`m.unsqueeze(0).unsqueeze(-1)`: [0, -1]); None when source is no such chain."""
    dims: list[int] = []
    node = source
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "unsqueeze"
        and len(node.args) == 1
        and literal_int(node.args[0].value) is not None
    ):
        dims.insert(0, literal_int(node.args[0].value))  # type: ignore[arg-type]
        node = node.func.value
    return dims or None


def _inserted_positions(unsqueezed: list[int], count: int) -> set[int] | None:
    """Where the dims a chain of unsqueezes inserts end up in a result of `count` dims (each
    later insertion shifts the earlier ones at or after it); None when a dim is out of range."""
    positions: list[int] = []
    rank = count - len(unsqueezed)
    for dim in unsqueezed:
        rank += 1
        if not -rank <= dim < rank:
            return None
        at = dim % rank
        positions = [p + 1 if p >= at else p for p in positions] + [at]
    return set(positions)


def _placed_kinds(source: cst.Subscript) -> list[str] | None:
    """The kinds of the entries of `source` that place a dim, in order (an integer index
    removes a source dim); None when an entry's effect on the dims is not spelled out (a
    bounded slice, a name)."""
    kinds = [index_kind(e.slice) for e in source.slice]
    if OTHER in kinds or RANGE in kinds:
        return None
    return [k for k in kinds if k != INTEGER]


def _shaping_source(
    facts: ModuleFacts, source: cst.BaseExpression, call: cst.Call
) -> cst.BaseExpression:
    """The expression that shaped an expand's receiver: the receiver itself, or for a name,
    the indexing, `unsqueeze` or literal view it was just bound to (`k = k.view(b, n, h, 1, d)`
    then `k.expand(b, n, h, g, d)`), when nothing between may change it."""
    if not isinstance(source, cst.Name):
        return source
    found = reaching_assignment(facts, source, statement_of(facts, call))
    if found is None:
        return source
    assign, _, between = found
    value = assign.value
    shapes = isinstance(value, cst.Subscript) or (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in ("unsqueeze", "view", "reshape")
    )
    if not shapes or any(may_change(facts, s, {source.value}) for s in between):
        return source
    return value


def _literal_view_sizes(facts: ModuleFacts, source: cst.BaseExpression) -> list[int | None] | None:
    """The sizes of `t.view(-1, 1)` / `t.reshape((1, -1))`, None for a size the code does not
    spell as an integer literal; None when the call is no such method call."""
    if not (
        isinstance(source, cst.Call)
        and isinstance(source.func, cst.Attribute)
        and source.func.attr.value in ("view", "reshape")
        and source.args
        and facts.imports.resolve(source.func) is None
    ):
        return None
    sizes = call_sizes(source)
    return None if sizes is None else [literal_int(size) for size in sizes]


def dims_of(
    facts: ModuleFacts, operand: cst.BaseExpression, statement: cst.CSTNode | None
) -> ExpandedDims | None:
    """`expanded_dims` of an inline expand, or of the expand a name was bound to; through a
    `.transpose(a, b)` of it with literal dims (the dims trade places)."""
    if isinstance(operand, cst.Name):
        found = reaching_assignment(facts, operand, statement)
        if found is None:
            return None
        operand, statement = found[0].value, found[1]
    transposed = transpose_parts(facts, operand)
    if transposed is not None:
        inner, swapped = transposed
        return transposed_dims(dims_of(facts, inner, statement), swapped)
    return expanded_dims(facts, operand)


def broadcast_along_different_dims(
    facts: ModuleFacts,
    operands: Sequence[tuple[cst.BaseExpression, object]],
    statement: cst.CSTNode | None,
) -> bool:
    """Two or more operands whose expands the code shows, broadcast along dims none of them
    share (`q[:, :, None].expand(b, n, s) == k[:, None, :].expand(b, n, s)`): the result
    carries a different value at every position, so it is no waste (semantics §0 rule 5).

    Each operand's dims are those its expand grows from inserted size-1 dims; for an expand
    that inserts none (`m.expand(b, -1, -1)`), every dim it does not keep. An operand may be
    `x.unsqueeze(k).expand_as(t)` (`_inserted_before_expand_as`) where every such `t` is the
    same and, beside other expands, is one of them: `m.masked_fill(p.unsqueeze(1).expand_as(m),
    1)` with `m = m.expand(b, -1, -1)` fills a per-row prefix into a per-row mask."""
    if _beside_its_own_transpose(facts, [operand for operand, _ in operands], statement):
        return True
    seen, expanded, targets = [], [], set()
    for operand, _ in operands:
        dims = dims_of(facts, operand, statement)
        broadcast = dims.broadcast if dims is not None else None
        if not broadcast:
            found = _inserted_before_expand_as(facts, operand, statement)
            if found is not None:
                targets.add(found[0])
                seen.append(found[1])
                continue
            broadcast = dims.candidates if dims is not None else frozenset()
            if not broadcast:
                return False
        seen.append(broadcast)
        expanded.append(operand)
    if len(targets) > 1 or (
        targets and expanded and not targets & {facts.text_of(e) for e in expanded}
    ):
        return False
    return len(seen) >= 2 and not frozenset.intersection(*seen)


def _beside_its_own_transpose(
    facts: ModuleFacts, operands: Sequence[cst.BaseExpression], statement: cst.CSTNode | None
) -> bool:
    """`a = areas.expand(n, n)` then `a + a.transpose(1, 0)`: an expand whose growable dims
    are the two the transpose swaps, beside that transpose. Whichever dim the source varies
    along, the other operand varies along the other: an outer op (a source constant along
    both would make the result one repeated number, which no code spells this way)."""
    if len(operands) != 2:
        return False
    for plain, other in (operands, operands[::-1]):
        transposed = transpose_parts(facts, other)
        if transposed is None or facts.text_of(transposed[0]) != facts.text_of(plain):
            continue
        dims = dims_of(facts, plain, statement)
        pair = _swapped_dims(transposed[1], dims)
        return pair is not None and pair[0] != pair[1] and dims.candidates == set(pair)  # type: ignore[union-attr]
    return False


def _inserted_before_expand_as(
    facts: ModuleFacts, operand: cst.BaseExpression, statement: cst.CSTNode | None
) -> tuple[str, frozenset[int]] | None:
    """(the code of `t`, the dims inserted counted from the front) for `x.unsqueeze(k)
    .expand_as(t)` with a literal k >= 0 or `x[:, None].expand_as(t)` without an `...`,
    inline or bound to the name `operand` loads."""
    call = operand
    if isinstance(operand, cst.Name):
        found = reaching_assignment(facts, operand, statement)
        call = found[0].value if found is not None else None
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "expand_as"
        and len(call.args) == 1
        and not call.args[0].keyword
        and not call.args[0].star
        and facts.imports.resolve(call.func) is None
    ):
        return None
    found = _inserted_by(_shaping_source(facts, call.func.value, call))
    return (facts.text_of(call.args[0].value), found[1]) if found is not None else None


def _inserted_by(node: cst.BaseExpression) -> tuple[cst.BaseExpression, frozenset[int]] | None:
    """(the tensor before it, the dims it inserts counted from the front) for `v[:, None]`
    without an `...` and `v.unsqueeze(k)` with a literal k >= 0; None for any other node or
    one that inserts nothing."""
    inserted: frozenset[int] = frozenset()
    if isinstance(node, cst.Subscript):
        placed = _placed_kinds(node)
        if placed is None or ELLIPSIS in placed:
            return None
        inserted = frozenset(i for i, kind in enumerate(placed) if kind == NEW_DIM)
    elif (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "unsqueeze"
        and len(node.args) == 1
    ):
        dim = literal_int(node.args[0].value)
        inserted = frozenset({dim}) if dim is not None and dim >= 0 else frozenset()
    if not inserted:
        return None
    before = node.value if isinstance(node, cst.Subscript) else node.func.value  # type: ignore[union-attr]
    return before, inserted


def transpose_parts(
    facts: ModuleFacts, node: cst.BaseExpression
) -> tuple[cst.BaseExpression, Sequence[cst.Arg]] | None:
    """(the tensor, the two dims) of `t.transpose(a, b)` / `swapaxes` / `swapdims` given two
    positional dims; None for any other node."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("transpose", "swapaxes", "swapdims")
        and len(node.args) == 2
        and not any(a.keyword or a.star for a in node.args)
        and facts.imports.resolve(node.func) is None
    ):
        return node.func.value, node.args
    return None


def _swapped_dims(
    swapped: Sequence[cst.Arg], dims: ExpandedDims | None
) -> tuple[int, int] | None:
    """The two dims a transpose swaps, counted from the front of the expand `dims` reads;
    None when the code does not spell them as literals."""
    if dims is None:
        return None
    first, second = (dim_index(literal_int(a.value), len(dims.nodes)) for a in swapped)
    return None if first is None or second is None else (first, second)


def transposed_dims(dims: ExpandedDims | None, swapped: Sequence[cst.Arg]) -> ExpandedDims | None:
    """The dims of `e.transpose(a, b)` for the expand `e` whose dims are `dims`: each size and
    each set of dims with `a` and `b` trading places; None where they are not literals."""
    pair = _swapped_dims(swapped, dims)
    if pair is None or dims is None:
        return None
    first, second = pair
    swap = {first: second, second: first}

    def moved(group: frozenset[int]) -> frozenset[int]:
        return frozenset(swap.get(d, d) for d in group)

    def placed(sizes: tuple[cst.BaseExpression, ...]) -> tuple[cst.BaseExpression, ...]:
        return tuple(sizes[swap.get(d, d)] for d in range(len(sizes)))

    return ExpandedDims(
        placed(dims.nodes), moved(dims.broadcast), moved(dims.kept), moved(dims.unit),
        dims.facts, moved(dims.inserted), placed(dims.viewed),
    )


# ---- a vector against itself ---------------------------------------------------------------


def pairs_a_vector_with_itself(
    facts: ModuleFacts, operands: Sequence[cst.BaseExpression], statement: cst.CSTNode | None
) -> bool:
    """`pos[None, :] - pos[:, None]`, `b = v.unsqueeze(1); v.unsqueeze(0) - b`: two operands
    that are one vector with a size-1 dim inserted at different places, so the result is the
    n x n table of every pair (relative positions, block distances): attention-map shaped,
    not a position vector, whatever its expands add."""
    if len(operands) != 2:
        return False
    placed = []
    for operand in operands:
        if isinstance(operand, cst.Name):  # through the one assignment it certainly reads
            found = reaching_assignment(facts, operand, statement)
            operand = found[0].value if found is not None else operand
        inserted = _inserted_by(operand)
        if inserted is None:
            return False
        placed.append((facts.text_of(inserted[0]), inserted[1]))
    (first, first_at), (second, second_at) = placed
    return first == second and first_at != second_at
