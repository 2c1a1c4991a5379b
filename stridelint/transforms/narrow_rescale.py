"""The narrow-and-rescale rewrite (PRODUCT.md; semantics doc §0 rules 1-8, §2, §4).

Narrow the broadcast *source* tensors on every dim whose stride is 0 and size > 1 before
the first elementwise op, compute on the small tensors, and rescale each reduction right
after it, before any non-linear op: sums and counts by the repeat count of the dims they
reduce, products by a power, logsumexp by a log; a later full reduction multiplies by the
repeats still pending.

The plan follows the materialized value through the function (through local names, as the
dataflow recorded them) and gives up, leaving the finding without a fix, wherever it cannot
prove the rewrite keeps every value: an operand that may be a full tensor, a view of the
materialized tensor, a result that escapes before every narrowed dim was reduced, a second
partial reduction, an operand with side effects.

A count of a tensor the code shows is bool goes to the count helper (`count_nonzero` on the
CPU; off it, int32 parts, where `sum` and `count_nonzero` copy the tensor to int64 first), and
`(X.sum(dim) - 1).clamp(min=0).sum()` of a bool X becomes the kept elements minus the rows that
keep any (`_excess_of_counts`, which also says why that is exact).

Every plan then passes the validity checks (the second half of this module) before the fix
may be `safe`: the narrowing runs only where the original evaluated the op (a statement of
its own just before the op's statement when that is provably the same, or right after the
statement that made the tensor when nothing in between can change it, else bound inside the
expression with `:=`); nothing rebinds or changes a `dim` between the reductions that read
it; every read of a followed name is one the plan rewrote; names come from a scope-aware
allocator; the imports and helpers it reads are not shadowed. A precondition it cannot prove
makes the fix `display`, with the reason in its message.

How the code looks is `FixStyle`'s: the narrowing written out for one name that surely holds
a tensor (`_inline_narrowing`), else a call of the helpers (pasted, or imported from the
`helper-module`); every piece the fix writes is laid out to the line length (layout.py).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, replace

import libcst as cst

from stridelint.analysis import dtypes, guards, mutation, outer_flows, purity, torch_ops
from stridelint.analysis.bindings import statement_of
from stridelint.analysis.dataflow import STARRED, FunctionFlow, reduction_dim
from stridelint.analysis.module import ModuleFacts
from stridelint.analysis.names import dotted
from stridelint.analysis.ranks import minimum_rank
from stridelint.analysis.scalars import is_python_number
from stridelint.analysis.scopes import NameAllocator, Scope, Scopes
from stridelint.analysis.tree import walk
from stridelint.analysis.values import Broadcast, Derived, Scalar, Sink, State
from stridelint.findings import Applicability, Edit, Fix
from stridelint.transforms import helpers, layout
from stridelint.transforms.layout import Bracketed, Closes, Opens, Piece, Spec, Wrapped
from stridelint.transforms.style import DEFAULT_STYLE, FixStyle

# Placeholders for names chosen once the plan is complete (private-use characters, which
# no source text the plan copies can hold).
_MATH, _REPEATS, _REPEATED_SUM, _NARROW, _REPS, _COUNT_TRUE = (
    f"\ue000{i}\ue001" for i in range(6)
)
_LOW_PRECEDENCE_PARENTS = (
    cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Expr, cst.Arg, cst.Element,
    cst.Comparison, cst.ComparisonTarget, cst.BooleanOperation, cst.IfExp, cst.DictElement,
    cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp, cst.CompIf,
)  # fmt: skip
_ADDITIVE = (cst.Add, cst.Subtract)
_SHIFT_AND_BITWISE = (cst.LeftShift, cst.RightShift, cst.BitAnd, cst.BitOr, cst.BitXor)
_MULTIPLICATIVE = (cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.MatrixMultiply)


class NoFix(Exception):
    """The rewrite cannot be proven to keep the program's values here."""


@dataclass(frozen=True)
class Chain:
    """What has been rescaled so far along one path from the narrowed value."""

    reduced: str | None = None  # None: nothing yet; "all"; or the code of the reduced dims
    integer: bool = True  # values are bool/int so far: rescaled sums are exact
    float_reduction: bool = False  # a float reduction was rescaled (rounding may differ)
    dim: cst.BaseExpression | None = None  # the runtime dim `reduced` reads, if any
    partial: cst.Call | None = None  # the partial reduction that read it


@dataclass
class _Plan:
    facts: ModuleFacts
    flow: FunctionFlow
    context: _ModuleContext
    owner: Scope  # the function's scope
    minimum_rank: int  # at least this many dims (0: unknown)
    style: FixStyle = field(default_factory=FixStyle)
    # call, whether it needs parentheses around it and its rescale, the rescale (" * f")
    wraps: list[tuple[cst.Call, bool, str]] = field(default_factory=list)
    # float sums: (call, receiver, other arguments, factor) -> helper(receiver, factor, args)
    replacements: list[tuple[cst.Call, cst.BaseExpression, list[cst.Arg], str]] = field(
        default_factory=list
    )
    # full counts of a bool tensor (call, receiver): the count helper's call instead
    counts: list[tuple[cst.Call, cst.BaseExpression]] = field(default_factory=list)
    excesses: list[_Excess] = field(default_factory=list)
    visited_loads: set[cst.Name] = field(default_factory=set)
    followed: set[str] = field(default_factory=set)  # local names the value flows through
    # (dim expression, partial reduction, later reduction that reads the dim again)
    dim_reads: list[tuple[cst.BaseExpression, cst.Call, cst.Call]] = field(default_factory=list)
    # the same for a counted tensor read again where its per-row counts were read
    tensor_reads: list[tuple[cst.BaseExpression, cst.Call, cst.Call]] = field(
        default_factory=list
    )
    unsafe_reasons: set[str] = field(default_factory=set)
    display_reasons: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _Excess:
    """`(X.sum(dim) - 1).clamp(min=0).sum()` of a bool name X, written as the kept elements
    minus the rows that hold one (`_excess_of_counts`)."""

    outer: cst.Call  # the outer `.sum()`, replaced whole
    receiver: cst.Name  # X
    dim: cst.BaseExpression
    factor: str  # the repeat count of the reduction over dim
    binding: cst.CSTNode | None  # `per_row = X.sum(dim)` just before, deleted with it
    parenthesized: bool  # the difference needs parentheses where the outer sum stood


@dataclass
class _ModuleContext:
    """What every narrow-and-rescale fix of one lint pass (one fix round) shares: the
    module's scopes and one allocator, so two fixes never take the same fresh name."""

    scopes: Scopes
    allocator: NameAllocator
    # Fresh names of the narrowings inserted at one offset: fixes that insert there overlap,
    # so one round applies only one of them, and they may share the names.
    narrowings: dict[tuple[int, str], tuple[list[str], str]] = field(default_factory=dict)


_CONTEXTS: weakref.WeakKeyDictionary[ModuleFacts, _ModuleContext] = weakref.WeakKeyDictionary()


def _module_context(facts: ModuleFacts) -> _ModuleContext:
    context = _CONTEXTS.get(facts)
    if context is None:
        context = _ModuleContext(facts.scopes, NameAllocator(facts.scopes))
        _CONTEXTS[facts] = context
    return context


def fix_sink(
    facts: ModuleFacts, flow: FunctionFlow, sink: Sink, style: FixStyle = DEFAULT_STYLE
) -> Fix | None:
    """The fix for SL101: narrow the sink's broadcast operands, rescale its reductions."""
    try:
        return _fix(facts, flow, [e for e, _ in sink.operands], sink.node, sink.statement,
                    Chain(integer=sink.integer_result), sink, style)
    except NoFix:
        return None


def fix_reduction(
    facts: ModuleFacts,
    flow: FunctionFlow,
    operand: cst.BaseExpression,
    statement,
    style: FixStyle = DEFAULT_STYLE,
) -> Fix | None:
    """The fix for SL102: narrow the reduced tensor itself, rescale the reduction."""
    try:
        return _fix(facts, flow, [operand], operand, statement, Chain(integer=False), None, style)
    except NoFix:
        return None


@dataclass(frozen=True)
class _Placement:
    """Where the narrowing runs: a statement of its own at `anchor` (offset, indentation),
    or, when `anchor` is None, bound with `:=` where the first operand stood."""

    anchor: tuple[int, str] | None


def _fix(
    facts: ModuleFacts,
    flow: FunctionFlow,
    operands: list[cst.BaseExpression],
    start: cst.BaseExpression,
    statement: cst.CSTNode | None,
    chain: Chain,
    sink: Sink | None,
    style: FixStyle,
) -> Fix:
    if statement is None or layout.RESERVED.search(facts.source.text):
        raise NoFix
    context = _module_context(facts)
    owner = context.scopes.scope_of_function(flow.func)
    operands = sorted(operands, key=lambda o: facts.span(o)[0])
    for operand in operands:
        _require_pure(facts, operand)
    placement = _place(facts, context.scopes, operands, start, statement)
    rank = max(minimum_rank(facts, context.scopes, flow, o) for o in operands)
    plan = _Plan(facts, flow, context, owner, rank, style)
    if sink is not None:
        _require_scalars(plan, list(sink.scalars))  # the op's other operands
    _follow(plan, start, chain)
    if sink is not None:
        _require_all_uses_visited(plan, sink)
    _check_followed_names(plan)
    _check_dim_reads(plan)

    if placement.anchor is not None:
        hoisted = _hoisted(plan, operands, statement, placement.anchor[0])
        placement = _Placement((hoisted, placement.anchor[1]))
    names, narrowed, reps, reused = _choose_names(plan, operands, placement, statement)
    source = facts.source
    specs: list[Spec] = []
    inline = False
    if placement.anchor is not None and not reused:
        indent_start, indent = placement.anchor
        pieces = _inline_narrowing(plan, operands, narrowed, reps, indent)
        inline = pieces is not None
        if pieces is None:
            targets = Bracketed("(", [*narrowed, reps], ")", optional=True)
            call = Bracketed(f"{_NARROW}(", [facts.text_of(o) for o in operands], ")")
            pieces = [targets, " = ", call, source.newline + indent]
        specs.append(Spec(indent_start, indent_start, pieces))
    specs.extend(_statement_specs(plan, operands, narrowed))
    emitted = [tail for _, _, tail in plan.wraps] + [r[3] for r in plan.replacements]
    emitted += [excess.factor for excess in plan.excesses]
    if plan.excesses:
        emitted.append(_MATH)
    edits: list[Edit] = list(
        helpers.module_edits(
            facts,
            names,
            needs_math=any(_MATH in text for text in emitted),
            needs_narrow=not reused and not inline,
            needs_repeats=any(_REPEATS in text for text in emitted),
            needs_repeated_sum=bool(plan.replacements),
            needs_count_true=bool(plan.counts or plan.excesses),
            line_length=style.line_length,
        )
    )
    added = [edit.start for edit in edits]  # the imports and helpers, at module level
    substitutions = {
        _MATH: names.math.name, _REPEATS: names.repeats.name,
        _REPEATED_SUM: names.repeated_sum.name, _NARROW: names.narrow.name, _REPS: reps,
        _COUNT_TRUE: names.count_true.name,
    }  # fmt: skip
    for spec in specs:
        _substitute_pieces(spec.pieces, substitutions)
    laid = layout.lay_out(
        source.text, specs, style.line_length, facts.module.default_indent, source.newline
    )
    edits.extend(source.edit(*span) for span in laid if span[0] != span[1] or span[2])
    if placement.anchor is not None and not reused:
        edits.extend(_claim(plan, operands))
    if outer_flows.runs_at_module_level(context.scopes, owner):
        _check_module_order(plan, names, statement, edits, added)
    operand_code = ", ".join(facts.text_of(o) for o in operands)
    return Fix(_applicability(plan), _message(plan, operand_code), tuple(edits))


def _check_module_order(
    plan: _Plan, names: helpers.HelperNames, statement: cst.CSTNode, edits: list[Edit],
    added: list[int],
) -> None:  # fmt: skip
    """Module-level code runs top to bottom: what the fix reads there must be bound above it;
    and a module-level name it narrows is one importers and later notebook cells may read."""
    text = "".join(edit.content for edit in edits)
    helper_names = (names.narrow, names.repeats, names.repeated_sum, names.count_true, names.math)
    used = [n for n in helper_names if n.name in text]
    if any(n.name in text for n in (names.narrow, names.repeated_sum, names.count_true)):
        used.append(names.torch)
    read = [n.name for n in used if n.exists]  # the ones the fix adds come with `added`
    scopes = plan.context.scopes
    late = outer_flows.bound_late(plan.facts, scopes, statement, read, added)
    if late is not None:
        plan.display_reasons.add(late)
    for name in sorted(plan.followed) if plan.owner is scopes.module else ():
        plan.unsafe_reasons.add(f"`{name}` is a module-level name other modules see narrowed")


def _hoisted(
    plan: _Plan, operands: list[cst.BaseExpression], statement: cst.CSTNode, anchor: int
) -> int:
    """Where the narrowing statement goes: right after the statement that binds the narrowed
    name, when that is an earlier statement of the same block and nothing in between may
    rebind the name or change its tensor (narrowing a surely bound name cannot raise or have
    an effect, so running it earlier is invisible); else just before the op's statement. Two
    fixes narrowing one name then insert at one point, so a fix round applies one of them and
    the next round's fix reuses its narrowing."""
    facts, scopes = plan.facts, plan.context.scopes
    if not _cannot_raise(scopes, operands) or not _surely_tensor(plan, operands[0]):
        return anchor
    name = operands[0].value
    block = facts.parents.get(statement)
    if not isinstance(block, cst.IndentedBlock):
        return anchor
    bound_in = [b.statement for b in plan.owner.bindings.get(name, ()) if b.statement is not None]
    siblings = list(block.body)
    position = next(i for i, s in enumerate(siblings) if s is statement)
    for index in range(position - 1, -1, -1):
        earlier = siblings[index]
        start, end = facts.span(earlier)
        inside = [b for b in bound_in if start <= facts.span(b)[0] < end]
        if not inside:
            continue
        if inside != [earlier]:
            return anchor  # bound inside a compound statement: the binding may not run
        region = mutation.region_between(
            facts, plan.flow.func, end, facts.span(operands[0])[0], (earlier, operands[0])
        )
        if mutation.changes(facts, scopes, plan.owner, {name}, region, _helper_names(plan)):
            return anchor
        return facts.span(siblings[index + 1])[0]
    return anchor


def _surely_tensor(plan: _Plan, operand: cst.BaseExpression) -> bool:
    """Whether the operand surely holds a tensor: a broadcast op of this function made it."""
    value = plan.flow.value_of(operand)
    return isinstance(value, Broadcast) and value.state is State.DEFINITE and value.local


def _claim(plan: _Plan, operands: list[cst.BaseExpression]) -> list[Edit]:
    """An empty edit where the function first binds the narrowed name: two fixes narrowing
    the same name then overlap, so a fix round applies one and the next round's fix reuses
    its narrowing (`_earlier_narrowing`) instead of narrowing the same tensor again."""
    if len(operands) != 1 or not isinstance(operands[0], cst.Name):
        return []
    bindings = plan.owner.bindings.get(operands[0].value)
    if not bindings:
        return []
    offset = plan.facts.span(bindings[0].node)[0]
    return [plan.facts.source.edit(offset, offset, "")]


def _applicability(plan: _Plan) -> Applicability:
    if plan.display_reasons:
        return Applicability.DISPLAY
    return Applicability.UNSAFE if plan.unsafe_reasons else Applicability.SAFE


def _message(plan: _Plan, operand_code: str) -> str:
    message = f"Narrow `{operand_code}` on its stride-0 dims before the op and rescale"
    if plan.display_reasons:
        message += f" (display only: {'; '.join(sorted(plan.display_reasons))})"
    elif plan.unsafe_reasons:
        message += f" (unsafe: {'; '.join(sorted(plan.unsafe_reasons))})"
    return message


def _substituted(text: str, substitutions: dict[str, str]) -> str:
    for token, name in substitutions.items():
        text = text.replace(token, name)
    return text


def _substitute_pieces(pieces: list[Piece], substitutions: dict[str, str]) -> None:
    """Put the chosen names in for their placeholders, in place (a unit may be shared)."""
    for index, piece in enumerate(pieces):
        if isinstance(piece, str):
            pieces[index] = _substituted(piece, substitutions)
        elif isinstance(piece, Bracketed):
            piece.opening = _substituted(piece.opening, substitutions)
            piece.parts = [_substituted(part, substitutions) for part in piece.parts]
            piece.closing = _substituted(piece.closing, substitutions)
        elif isinstance(piece, (Opens, Closes)):
            piece.unit.tail = _substituted(piece.unit.tail, substitutions)


def _inline_narrowing(
    plan: _Plan, operands: list[cst.BaseExpression], narrowed: list[Piece], reps: str, indent: str
) -> list[Piece] | None:
    """The narrowing written out, in place of the helper: the repeat counts as a tuple of
    the sizes of the dims with stride 0 and size > 1 (else 1), and a view cut to one element
    on those dims, exactly what the helper returns for one tensor. Only for one name that
    surely holds a tensor (a broadcast op made it in this function), where `tuple`, `zip`
    and `slice` are the built-ins, and when the two statements fit the line length on at
    most six lines."""
    if len(operands) != 1 or not isinstance(operands[0], cst.Name):
        return None
    if not _surely_tensor(plan, operands[0]):
        return None
    scopes = plan.context.scopes
    scope = scopes.scope_of(operands[0])
    if scopes.module.star_import or any(
        scopes.lookup(scope, builtin) is not None for builtin in ("tuple", "zip", "slice")
    ):
        return None
    name, small, newline = operands[0].value, narrowed[0], plan.facts.source.newline
    assert isinstance(small, str)
    counts = Bracketed(
        "tuple(",
        ["n if st == 0 and n > 1 else 1", f"for n, st in zip({name}.shape, {name}.stride())"],
        ")", separator=" ", trailing="",
    )  # fmt: skip
    view = Bracketed(f"{name}[", [f"tuple(slice(1) if r > 1 else slice(None) for r in {reps})"], "]")
    pieces: list[Piece] = [f"{reps} = ", counts, newline + indent, f"{small} = ", view,
                           newline + indent]  # fmt: skip
    alone = f"{indent}pass"
    laid = layout.lay_out(alone, [Spec(len(indent), len(indent), pieces)],
                          plan.style.line_length, plan.facts.module.default_indent, newline)  # fmt: skip
    written = indent + laid[0][2]
    if not layout.fits(written, plan.style.line_length) or written.count(newline) > 6:
        return None
    return pieces


def _statement_specs(
    plan: _Plan, operands: list[cst.BaseExpression], narrowed: list[Piece]
) -> list[Spec]:
    """The edits inside the function: operand renames, rescaling wraps, counts of bools
    given to the count helper, and float sums replaced by the helper call (with the edits
    inside them folded into their text)."""
    facts = plan.facts
    specs = [Spec(*facts.span(o), [name]) for o, name in zip(operands, narrowed)]
    wraps = [
        (call, Wrapped(parenthesized, tail, _tight(facts, call)))
        for call, parenthesized, tail in plan.wraps
    ]
    # Openings of nested wraps that start at one offset must open outermost first.
    by_position = sorted(wraps, key=lambda w: (facts.span(w[0])[0], -facts.span(w[0])[1]))
    for call, unit in by_position:
        start = facts.span(call)[0]
        specs.append(Spec(start, start, [Opens(unit)]))
    for call, unit in wraps:
        end = facts.span(call)[1]
        specs.append(Spec(end, end, [Closes(unit)]))
    for call, receiver in plan.counts:  # `X.sum()`, `torch.sum(X)` -> `count(X)`
        (start, end), (receiver_start, receiver_end) = facts.span(call), facts.span(receiver)
        specs.append(Spec(start, receiver_start, [f"{_COUNT_TRUE}("]))
        specs.append(Spec(receiver_end, end, [")"]))
    for excess in plan.excesses:
        specs = _excess_specs(plan, excess, specs)
    # Innermost first, so an outer replacement folds in the inner one's text.
    for call, receiver, arguments, factor in sorted(
        plan.replacements, key=lambda r: facts.span(r[0])[1] - facts.span(r[0])[0]
    ):
        receiver_text, specs = _fold(facts, specs, facts.span(receiver))
        parts = [receiver_text, factor]
        if arguments:
            span = (facts.span(arguments[0])[0], facts.span(arguments[-1])[1])
            arguments_text, specs = _fold(facts, specs, span)
            parts.append(arguments_text)
        specs.append(Spec(*facts.span(call), [Bracketed(f"{_REPEATED_SUM}(", parts, ")")]))
    return specs


def _excess_specs(plan: _Plan, excess: _Excess, specs: list[Spec]) -> list[Spec]:
    """`excess.outer` replaced by kept elements minus non-empty rows, each count rescaled
    (`_excess_of_counts`), and the statement that bound the per-row counts deleted."""
    facts = plan.facts
    receiver = excess.receiver.value
    dim = facts.module.code_for_node(excess.dim).strip()  # a tuple's parentheses too
    start, end = facts.span(excess.outer)
    spans = [(start, end)]
    if excess.binding is not None:
        spans.append((facts.span(excess.binding)[0], _next_statement_start(plan, excess.binding)))
    if any(s <= spec.start and spec.end <= e for spec in specs for s, e in spans):
        raise NoFix  # another edit inside what is replaced
    everything = f"{_MATH}.prod({_REPS})"
    parts = [
        f"{_COUNT_TRUE}({receiver}) * {everything}",
        f"- {_COUNT_TRUE}({receiver}, {dim}, rows=True)",
        f"* {_operand(f'{everything} // {excess.factor}')}",
    ]
    specs.append(Spec(start, end, [Bracketed(
        "(", parts, ")", separator=" ", trailing="", optional=not excess.parenthesized
    )]))  # fmt: skip
    if excess.binding is not None:
        specs.append(Spec(*spans[1], []))
    return specs


def _next_statement_start(plan: _Plan, statement: cst.CSTNode) -> int:
    block = plan.facts.parents[statement]
    siblings = list(block.body)  # type: ignore[attr-defined]
    position = next(i for i, s in enumerate(siblings) if s is statement)
    return plan.facts.span(siblings[position + 1])[0]


def _tight(facts: ModuleFacts, node: cst.CSTNode) -> bool:
    """Whether the node is all that stands inside the brackets around it, as in `int(x)`."""
    start, end = facts.span(node)
    text = facts.source.text
    return text[:start].rstrip()[-1:] in ("(", "[") and text[end:].lstrip()[:1] in (")", "]")


def _fold(facts: ModuleFacts, specs: list[Spec], span: tuple[int, int]) -> tuple[str, list[Spec]]:
    """The text of span with the edits inside it applied (flat), and the edits left outside."""
    start, end = span
    inside = [e for e in specs if start <= e.start and e.end <= end]
    outside = [e for e in specs if not (start <= e.start and e.end <= end)]
    text = facts.source.text
    pieces, cursor = [], start
    for spec in sorted(inside, key=lambda e: (e.start, e.end)):
        pieces += [text[cursor : spec.start], layout.flat(spec.pieces)]
        cursor = spec.end
    pieces.append(text[cursor:end])
    return "".join(pieces), outside


# ---- following the value ------------------------------------------------------------------


def _follow(plan: _Plan, node: cst.BaseExpression, chain: Chain) -> None:
    if chain.reduced == "all":
        return  # fully reduced: from here on the value equals the original's
    parents = plan.facts.parents
    parent = parents.get(node)
    if isinstance(parent, (cst.BinaryOperation, cst.Comparison, cst.ComparisonTarget)):
        owner = parents[parent] if isinstance(parent, cst.ComparisonTarget) else parent
        if isinstance(owner, cst.Comparison) and not _is_elementwise_comparison(owner):
            raise NoFix  # a chained comparison calls bool(): one narrowed element may pass
        if isinstance(getattr(owner, "operator", None), cst.MatrixMultiply):
            raise NoFix
        others = _other_operands(owner, node)
        _require_scalars(plan, others)
        integer = chain.integer and not _makes_float(owner, others)
        if isinstance(owner, cst.Comparison):
            integer = True
        _follow(plan, owner, replace(chain, integer=integer))
    elif isinstance(parent, cst.UnaryOperation) and not isinstance(parent.operator, cst.Not):
        _follow(plan, parent, chain)
    elif isinstance(parent, cst.Attribute) and parent.value is node:
        call = parents.get(parent)
        if not isinstance(call, cst.Call) or call.func is not parent:
            raise NoFix
        _method(plan, call, parent.attr.value, chain)
    elif isinstance(parent, cst.Arg):
        call = parents.get(parent)
        if not isinstance(call, cst.Call) or not call.args or call.args[0] is not parent:
            raise NoFix
        qualified = plan.facts.imports.resolve(call.func) or ""
        name = qualified.removeprefix("torch.")
        if qualified in torch_ops.REDUCTION_FUNCTIONS:
            _reduce(plan, call, name, _dim(call, functional=True), chain, functional=True)
        elif qualified in torch_ops.ELEMENTWISE_FUNCTIONS and name not in ("where", "masked_fill"):
            others = [a.value for a in call.args[1:]]
            _follow_elementwise_call(plan, call, name, others, chain)
        else:
            raise NoFix
    elif isinstance(parent, cst.Assign) and parent.value is node:
        if len(parent.targets) != 1 or not isinstance(parent.targets[0].target, cst.Name):
            raise NoFix
        _follow_name(plan, parent.targets[0].target.value, parent, chain)
    else:
        raise NoFix  # the value escapes while it still has narrowed dims


def _follow_name(plan: _Plan, name: str, assign: cst.Assign, chain: Chain) -> None:
    assigned_value = plan.flow.value_of(assign.value)
    if not isinstance(assigned_value, Derived) or not assigned_value.exact:
        raise NoFix
    plan.followed.add(name)
    for load, value in plan.flow.loads.items():
        if load.value != name or not isinstance(value, Derived):
            continue
        if not value.sinks & assigned_value.sinks:
            continue
        if not value.exact or value.sinks != assigned_value.sinks:
            raise NoFix
        binding = plan.context.scopes.resolve(load)
        if binding is not plan.owner and name not in plan.owner.global_names:
            raise NoFix  # e.g. a comprehension variable of the same name: another value
        if load in plan.visited_loads or _rebinds_itself(plan, load, name):
            # `m = m.int()`: the loads after it belong to another binding of the same name,
            # which the values cannot tell apart; refuse rather than rescale twice.
            raise NoFix
        plan.visited_loads.add(load)
        _follow(plan, load, chain)


def _rebinds_itself(plan: _Plan, load: cst.Name, name: str) -> bool:
    """Whether the load sits in the value of an assignment to its own name."""
    node: cst.CSTNode | None = load
    while node is not None and not isinstance(node, cst.BaseStatement):
        parent = plan.facts.parents.get(node)
        if isinstance(parent, cst.Assign) and node is parent.value:
            return any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in parent.targets
            )
        node = parent
    return False


def _method(plan: _Plan, call: cst.Call, name: str, chain: Chain) -> None:
    if name in torch_ops.REDUCTIONS:
        _reduce(plan, call, name, _dim(call, functional=False), chain)
        return
    arguments = [a.value for a in call.args]
    if name in torch_ops.CAST_METHODS:
        integer = name in torch_ops.BOOL_CASTS | torch_ops.INTEGER_CASTS
        _follow(plan, call, replace(chain, integer=integer))
    elif name in ("to", "type") and arguments:
        if not all(dotted(a) for a in arguments):
            raise NoFix  # e.g. `.to(x)`: another tensor, whose dtype we cannot read
        integer = any(dtypes.names_integer_dtype(a) for a in arguments)
        _follow(plan, call, replace(chain, integer=integer))
    elif name in torch_ops.ELEMENTWISE_METHODS and name not in ("where", "masked_fill"):
        _follow_elementwise_call(plan, call, name, arguments, chain)
    else:
        raise NoFix


def _follow_elementwise_call(
    plan: _Plan, call: cst.Call, name: str, arguments: list[cst.BaseExpression], chain: Chain
) -> None:
    _require_scalars(plan, arguments)
    floats = not all(_is_integer_literal(a) for a in arguments) or name in (
        "div", "divide", "true_divide", "sqrt", "exp", "log", "sigmoid", "rsqrt", "reciprocal",
    )
    if name in torch_ops.BOOL_RESULT_METHODS:
        floats = False
    _follow(plan, call, replace(chain, integer=chain.integer and not floats))


def _replace_with_repeated_sum(plan: _Plan, call: cst.Call, factor: str, functional: bool) -> None:
    """fp16/bf16 sums must accumulate in fp32 and round once, like the original (§2.6(C));
    the helper does that at run time, when the dtype is known."""
    if functional:
        receiver, arguments = call.args[0].value, list(call.args[1:])
    else:
        receiver, arguments = call.func.value, list(call.args)
    plan.replacements.append((call, receiver, arguments, factor))


def _reduce(
    plan: _Plan,
    call: cst.Call,
    name: str,
    dim: cst.BaseExpression | None,
    chain: Chain,
    functional: bool = False,
) -> None:
    scale = torch_ops.REDUCTIONS.get(name) or torch_ops.REDUCTION_FUNCTIONS.get(name)
    if name in torch_ops.DIM_REQUIRED_FOR_TUPLE and dim is not None:
        raise NoFix  # max/min with a dim return (values, indices)
    if scale == "norm" or _has_keyword(call, "out"):
        raise NoFix
    if name == "norm" or name.endswith("vector_norm"):
        raise NoFix
    full = dim is None
    if chain.reduced is not None and not full:
        raise NoFix  # a second partial reduction renumbers the dims
    if full:
        if chain.reduced is None:
            factor = f"{_MATH}.prod({_REPS})"
        else:
            factor = f"{_MATH}.prod({_REPS}) // {chain.reduced}"
            if chain.dim is not None:
                plan.dim_reads.append((chain.dim, chain.partial, call))
        reduced = "all"
    else:
        factor = _partial_factor(plan, name, dim)
        if factor is None:
            _follow(plan, call, chain)  # `any(dim=())` reduces nothing (semantics §2.1)
            return
        reduced = factor
        if not _is_literal_dim(dim):
            plan.dim_reads.append((dim, call, call))
    dtype = next((a.value for a in call.args if a.keyword and a.keyword.value == "dtype"), None)
    if name in ("sum", "count_nonzero") and chain.reduced is None and _counts_bools(
        plan, call, name, functional, full
    ):
        chain = replace(chain, integer=True)  # counts of bools: exact
        if full:
            plan.counts.append((call, _receiver(call, functional)))
        elif dim is not None:
            excess = _excess_of_counts(plan, call, dim, factor, functional)
            if excess is not None:
                plan.excesses.append(excess)
                return
    if scale == "mul":
        exact = chain.integer or name in torch_ops.COUNT_REDUCTIONS
        if dtype is not None:
            exact = _check_dtype_argument(plan, dtype, name)
        if not exact:
            plan.unsafe_reasons.add("a float sum of the narrowed tensor rounds differently")
        if not exact and name == "sum" and dtype is None:
            _replace_with_repeated_sum(plan, call, factor, functional)
        else:
            _wrap(plan, call, f" * {_operand(factor)}", "mul")
    elif scale == "pow":
        if dtype is not None and not _names_dtype(dtype, ("int64", "long")):
            plan.display_reasons.add(
                f"`{plan.facts.snippet(dtype)}` products raised to the repeat count may overflow"
                " that dtype and raise"
            )
        if not chain.integer:
            plan.unsafe_reasons.add("a float product of the narrowed tensor rounds differently")
        _wrap(plan, call, f" ** {_operand(factor)}", "pow")
    elif scale == "log":
        plan.unsafe_reasons.add("logsumexp of the narrowed tensor rounds differently")
        _wrap(plan, call, f" + {_MATH}.log({factor})", "add")
    elif name in ("mean", "nanmean"):
        plan.unsafe_reasons.add("the mean of the narrowed tensor rounds differently")
    integer = chain.integer and name not in ("mean", "nanmean", "logsumexp")
    if name in torch_ops.COUNT_REDUCTIONS or name in ("any", "all"):
        integer = True  # counts and bools, whatever the input
    if dtype is not None and scale == "mul":
        integer = _names_dtype(dtype, torch_ops.INTEGER_DTYPE_NAMES)
    partial = None if full else call
    runtime_dim = None if full or _is_literal_dim(dim) else dim
    _follow(plan, call, Chain(reduced, integer, dim=runtime_dim, partial=partial))


def _receiver(call: cst.Call, functional: bool) -> cst.BaseExpression:
    return call.args[0].value if functional else call.func.value  # type: ignore[attr-defined]


def _counts_bools(
    plan: _Plan, call: cst.Call, name: str, functional: bool, full: bool
) -> bool:
    """Whether `call` counts the True elements of a tensor the code shows is bool (a
    comparison, a bool cast: dtypes.py), taking only that tensor, and unless `full` a dim
    (and for `sum`, keepdim): no dtype, no `out`."""
    arguments = call.args[1:] if functional else call.args
    if functional and (not call.args or call.args[0].keyword or call.args[0].star):
        return False
    if full and arguments:
        return False
    keywords = ("dim", "keepdim") if name == "sum" else ("dim",)
    if any(a.star or a.keyword and a.keyword.value not in keywords for a in arguments):
        return False
    if sum(a.keyword is None for a in arguments) > len(keywords):
        return False
    receiver = _receiver(call, functional)
    return dtypes.dtype_of(plan.facts, receiver, statement_of(plan.facts, call)) == "bool"


def _excess_of_counts(
    plan: _Plan, call: cst.Call, dim: cst.BaseExpression, factor: str, functional: bool
) -> _Excess | None:
    """`(X.sum(dim) - 1).clamp(min=0).sum()` of a bool name X, the sum inline or bound to a
    name (`per_row = X.sum(dim)`) that only the very next statement reads, once: the kept
    elements of X beyond the first of each row along dim, which is the kept elements minus
    the rows that keep any. Narrowed, with repeat counts R (R_dim those of dim):
    `count(X) * prod(R) - rows(X, dim) * (prod(R) // R_dim)`, with the count helper. None
    for anything else (each reduction is then rescaled as usual).

    Safe: X.sum(dim) counts each row's kept elements k >= 0, and the sum over rows of
    max(k - 1, 0) is the sum of k minus the rows with k > 0. Every term is an exact int64
    count below X.numel(), a 0-d tensor on X's device, so value, dtype, shape and device are
    the original's for every input. The per-row counts, 8 bytes a row, are never made."""
    facts = plan.facts
    receiver = _receiver(call, functional)
    if not isinstance(receiver, cst.Name) or receiver.value not in plan.followed:
        return None
    node: cst.CSTNode = call
    binding = None
    parent = facts.parents.get(call)
    if isinstance(parent, cst.Assign):
        used = _read_once_next(plan, parent)
        if used is None:
            return None
        node, binding = used
    outer = _clamped_excess_sum(facts, node)
    if outer is None:
        return None
    if isinstance(node, cst.Name):
        plan.followed.add(node.value)
        plan.visited_loads.add(node)
    plan.tensor_reads.append((receiver, call, outer))
    if not _is_literal_dim(dim):
        plan.dim_reads.append((dim, call, outer))
    parenthesized = not outer.lpar and not _binds_looser(facts.parents.get(outer), outer, "add")
    return _Excess(outer, receiver, dim, factor, binding, parenthesized)


def _read_once_next(plan: _Plan, assign: cst.Assign) -> tuple[cst.Name, cst.CSTNode] | None:
    """(load, statement) when `assign` is a statement `name = ...` of its own, the only
    binding of a plain local name, which is read once, in the next statement of its block,
    where nothing that may have an effect or raise runs before that read, and exactly once;
    so the statement can go and its value be computed where it is read."""
    facts, scopes, owner = plan.facts, plan.context.scopes, plan.owner
    if outer_flows.runs_at_module_level(scopes, owner):
        return None  # a module's name: other modules and later cells may read it
    statement = facts.parents.get(assign)
    name = _assigned_name(statement) if statement is not None else None
    if name is None or scopes.declared_elsewhere(owner, name) or name in owner.global_names:
        return None
    if scopes.uses_dynamic_scope(owner):
        return None
    bound = owner.bindings.get(name, [])
    loads = scopes.loads_of(owner, name)
    if len(bound) != 1 or bound[0].statement is not statement or len(loads) != 1:
        return None
    load = loads[0]
    if load not in plan.flow.loads:
        return None
    block = facts.parents.get(statement)
    siblings = list(getattr(block, "body", ()))
    position = next(i for i, s in enumerate(siblings) if s is statement)
    use = statement_of(facts, load)
    if position + 1 >= len(siblings) or siblings[position + 1] is not use:
        return None
    if facts.source.text[facts.span(statement)[1] : facts.span(use)[0]].strip():
        return None  # a comment between them
    if guards.condition(facts.parents, load, use) or guards.runs_later(facts.parents, load, use):
        return None
    before = guards.evaluated_before(facts.parents, load, use)
    if before is None or not guards.inert(scopes, before):
        return None
    return load, statement


def _clamped_excess_sum(facts: ModuleFacts, node: cst.CSTNode) -> cst.Call | None:
    """The outer call of `(node - 1).clamp(min=0).sum()` (or `clamp(0)`, `clamp_min(0)`)."""
    parents = facts.parents
    minus = parents.get(node)
    if not (
        isinstance(minus, cst.BinaryOperation) and minus.left is node
        and isinstance(minus.operator, cst.Subtract) and _is_int(minus.right, 1)
    ):  # fmt: skip
        return None
    clamp = _method_call(parents, minus)
    if clamp is None or not _clamps_at_zero(clamp):
        return None
    outer = _method_call(parents, clamp)
    if outer is None or outer.func.attr.value != "sum" or outer.args:  # type: ignore[attr-defined]
        return None
    return outer


def _method_call(parents: dict, receiver: cst.CSTNode) -> cst.Call | None:
    attribute = parents.get(receiver)
    if not isinstance(attribute, cst.Attribute) or attribute.value is not receiver:
        return None
    call = parents.get(attribute)
    return call if isinstance(call, cst.Call) and call.func is attribute else None


def _clamps_at_zero(call: cst.Call) -> bool:
    method = call.func.attr.value  # type: ignore[attr-defined]
    if method not in ("clamp", "clamp_min") or len(call.args) != 1:
        return False
    arg = call.args[0]
    keyword = arg.keyword.value if arg.keyword is not None else "min"
    return keyword == "min" and not arg.star and _is_int(arg.value, 0)


def _is_int(node: cst.BaseExpression, value: int) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == value


def _partial_factor(plan: _Plan, name: str, dim: cst.BaseExpression) -> str | None:
    """The repeat count a reduction over `dim` rescales by (None: it reduces no dim). A
    literal dim indexes the repeats directly only when the tensor surely has a dim (a 0-d
    tensor accepts `dim=0` and `dim=-1`, but its repeats are empty); otherwise the helper,
    which also handles runtime dims, tuples and the empty tuple (semantics §2.1)."""
    dim_code = plan.facts.module.code_for_node(dim).strip()
    if _is_integer_dim(dim):
        if plan.minimum_rank >= 1:
            return f"{_REPS}[{dim_code}]"
        return f"{_REPEATS}({_REPS}, {dim_code})"
    if isinstance(dim, cst.Name) or isinstance(dim, (cst.Tuple, cst.List)) and all(
        isinstance(e.value, (cst.Integer, cst.UnaryOperation, cst.Name)) for e in dim.elements
    ):
        if name in ("any", "all") and isinstance(dim, (cst.Tuple, cst.List)) and not dim.elements:
            return None
        # An empty sequence of dims reduces every dim, but none for any/all (§2.1).
        empty = "" if name not in ("any", "all") else ", reduces_all_when_empty=False"
        return f"{_REPEATS}({_REPS}, {dim_code}{empty})"
    raise NoFix


def _is_integer_dim(dim: cst.BaseExpression) -> bool:
    return isinstance(dim, cst.Integer) or (
        isinstance(dim, cst.UnaryOperation)
        and isinstance(dim.operator, cst.Minus)
        and isinstance(dim.expression, cst.Integer)
    )


def _is_literal_dim(dim: cst.BaseExpression) -> bool:
    if isinstance(dim, (cst.Tuple, cst.List)):
        return all(_is_integer_dim(e.value) for e in dim.elements)
    return _is_integer_dim(dim)


def _check_dtype_argument(plan: _Plan, dtype: cst.BaseExpression, name: str) -> bool:
    """Whether a `sum(dtype=...)` rescaled by the repeat count stays exact: integer dtypes
    wrap alike in both forms (semantics §2.5); floats round differently (unsafe); a bool
    result would become int64, and an unknown dtype may be bool."""
    if _names_dtype(dtype, torch_ops.INTEGER_DTYPE_NAMES):
        return True
    if _names_dtype(dtype, torch_ops.FLOAT_DTYPE_NAMES):
        return False
    plan.display_reasons.add(
        f"`{name}(dtype={plan.facts.snippet(dtype)})` times the repeat count may not keep"
        " that dtype"
    )
    return False


def _names_dtype(node: cst.BaseExpression, names: frozenset[str]) -> bool:
    return (dotted(node) or "").split(".")[-1] in names


def _operand(factor: str) -> str:
    """The factor as an operand of `*` or `**`: a quotient needs parentheses."""
    return f"({factor})" if " // " in factor else factor


def _wrap(plan: _Plan, call: cst.Call, tail: str, operator: str) -> None:
    needs_parens = not call.lpar and not _binds_looser(plan.facts.parents.get(call), call, operator)
    plan.wraps.append((call, needs_parens, tail))


def _binds_looser(parent: cst.CSTNode | None, node: cst.CSTNode, operator: str) -> bool:
    """Whether `node <operator> factor` can stand where `node` stood without parentheses."""
    if isinstance(parent, _LOW_PRECEDENCE_PARENTS):
        return True
    if not isinstance(parent, cst.BinaryOperation):
        return False
    op = parent.operator
    if operator == "pow":
        return not isinstance(op, cst.Power)
    looser = _SHIFT_AND_BITWISE + (_ADDITIVE if operator == "mul" else ())
    if isinstance(op, looser):
        return True
    same_level = _MULTIPLICATIVE if operator == "mul" else _ADDITIVE
    return isinstance(op, same_level) and parent.left is node


# ---- checks -------------------------------------------------------------------------------


def _require_scalars(plan: _Plan, expressions: list[cst.BaseExpression]) -> None:
    """Narrowing one operand of an elementwise op is right only when the others are numbers
    (semantics §0 rule 5). Where the dataflow took an operand for a number that this cannot
    prove (`abs(t)` of a tensor `t`), the fix is shown, not applied."""
    for expression in expressions:
        if _is_literal(expression):
            continue
        if is_python_number(plan.facts, plan.context.scopes, expression):
            continue
        if not isinstance(plan.flow.value_of(expression), Scalar):
            raise NoFix  # it may be a tensor that is not broadcast along the narrowed dims
        plan.display_reasons.add(
            f"`{plan.facts.snippet(expression)}` may be a tensor that is not broadcast where"
            " the narrowed operand is"
        )


def _is_elementwise_comparison(comparison: cst.Comparison) -> bool:
    python_only = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
    return len(comparison.comparisons) == 1 and not isinstance(
        comparison.comparisons[0].operator, python_only
    )


def _is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _is_literal(node.expression)
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _makes_float(owner: cst.CSTNode, others: list[cst.BaseExpression]) -> bool:
    """Whether the op may turn bool/int values into floats: a division, a power, or any
    operand that is not an int or bool literal (a scalar name may hold a float)."""
    if isinstance(getattr(owner, "operator", None), (cst.Divide, cst.Power)):
        return True
    return not all(_is_integer_literal(o) for o in others)


def _is_integer_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _is_integer_literal(node.expression)
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _other_operands(owner: cst.CSTNode, node: cst.CSTNode) -> list[cst.BaseExpression]:
    if isinstance(owner, cst.BinaryOperation):
        return [owner.right if owner.left is node else owner.left]
    assert isinstance(owner, cst.Comparison)
    operands = [owner.left] + [t.comparator for t in owner.comparisons]
    return [o for o in operands if o is not node]


def _require_all_uses_visited(plan: _Plan, sink: Sink) -> None:
    """Every name load that can see the materialized value must have been rewritten."""
    for load, value in plan.flow.loads.items():
        if isinstance(value, Derived) and sink in value.sinks and load not in plan.visited_loads:
            raise NoFix


def _require_pure(facts: ModuleFacts, operand: cst.BaseExpression) -> None:
    """The operand may move into the narrowing (or one statement earlier) unchanged."""
    if not purity.is_view_expression(facts, operand):
        raise NoFix


# ---- validity: where the narrowing runs ------------------------------------------------


def _place(
    facts: ModuleFacts,
    scopes: Scopes,
    operands: list[cst.BaseExpression],
    start: cst.BaseExpression,
    statement: cst.CSTNode,
) -> _Placement:
    """A statement of its own just before the op's statement, when running it there is
    provably the same as running it where the op ran: the op runs exactly once and
    everything the statement evaluates before it has no effect and cannot raise; or the
    narrowing can neither raise nor have an effect (one surely bound name) and nothing the
    statement evaluates before the op changes that name or its tensor. Else inside the
    expression with `:=`, which runs exactly where and as often as the original operand."""
    parents = facts.parents
    first = operands[0]
    _require_adjacent(facts, operands, start)
    anchor = _insertion_anchor(facts, statement)
    before = guards.evaluated_before(parents, first, statement)
    later = guards.runs_later(parents, first, statement)
    if anchor is not None and before is not None and later is None:
        once = guards.condition(parents, first, statement) is None
        if once and guards.inert(scopes, before):
            return _Placement(anchor)  # the statement runs the op first thing, once
        if _cannot_raise(scopes, operands) and mutation.effects(facts, scopes, before) is None:
            return _Placement(anchor)  # narrowing earlier is invisible: nothing changes it
    if guards.walrus_forbidden(parents, first, statement) is not None:
        raise NoFix
    return _Placement(None)


def _require_adjacent(
    facts: ModuleFacts, operands: list[cst.BaseExpression], start: cst.BaseExpression
) -> None:
    """Several operands are narrowed together where the first is evaluated: nothing but
    literals may run between them."""
    if len(operands) < 2:
        return
    first_end, last_start = facts.span(operands[0])[1], facts.span(operands[-1])[0]
    inside = {id(n) for o in operands for n in walk(o)}
    for node in walk(start):
        if id(node) in inside or not isinstance(node, cst.BaseExpression):
            continue
        node_start, node_end = facts.span(node)
        if first_end <= node_start and node_end <= last_start and not _is_literal(node):
            raise NoFix
    if isinstance(start, cst.Call) and any(a.star for a in start.args):
        raise NoFix


def _cannot_raise(scopes: Scopes, operands: list[cst.BaseExpression]) -> bool:
    """Narrowing one surely bound name never raises (a non-tensor passes through)."""
    return (
        len(operands) == 1
        and isinstance(operands[0], cst.Name)
        and scopes.definitely_bound(operands[0])
    )


# ---- validity: what the plan reads later -------------------------------------------------


def _check_followed_names(plan: _Plan) -> None:
    """A local the narrowed value flows through must be read only where the plan rewrote
    it: not in a nested function, a lambda or an f-string (which the dataflow does not
    see), not shared as a global or nonlocal, not reachable through `locals()` and kin."""
    scopes = plan.context.scopes
    if plan.followed and scopes.uses_dynamic_scope(plan.owner):
        plan.display_reasons.add("the function calls `locals`, `vars`, `eval` or `exec`")
    for name in sorted(plan.followed):
        if scopes.declared_elsewhere(plan.owner, name) or name in plan.owner.global_names:
            plan.display_reasons.add(f"`{name}` is declared global or nonlocal")
            continue
        unseen = [
            load for load in scopes.loads_of(plan.owner, name) if load not in plan.flow.loads
        ]
        if unseen:
            plan.display_reasons.add(
                f"`{name}` is also read in a nested function, a lambda or an f-string, where"
                " it would hold the narrowed tensor"
            )


def _check_dim_reads(plan: _Plan) -> None:
    """A runtime `dim` read again after its reduction (to rescale, and at the later full
    reduction) must still hold what the reduction read, and mean the same variable there;
    so must a counted tensor read again where its per-row counts were."""
    facts, scopes = plan.facts, plan.context.scopes
    reads = [("the dim ", read) for read in plan.dim_reads]
    reads += [("", read) for read in plan.tensor_reads]
    for what, (dim, partial, later) in reads:
        names = {n.value for n in walk(dim) if isinstance(n, cst.Name)}
        dim_scope, later_scope = scopes.scope_of(dim), scopes.scope_of(later)
        if any(scopes.lookup(dim_scope, n) is not scopes.lookup(later_scope, n) for n in names):
            plan.display_reasons.add(
                f"`{facts.snippet(dim)}` names another variable at `{facts.snippet(later)}`"
            )
            continue
        region = mutation.region_between(
            facts, plan.flow.func, facts.span(dim)[1], facts.span(later)[1], (dim, later)
        )
        reason = mutation.changes(facts, scopes, plan.owner, names, region, _helper_names(plan))
        if reason is not None:
            plan.display_reasons.add(
                f"{what}`{facts.snippet(dim)}` is read again after `{facts.snippet(partial)}`"
                f" and may have changed: {reason}"
            )


def _helper_names(plan: _Plan) -> frozenset[str]:
    """The module's own narrow-and-rescale helpers (from earlier fixes): they change nothing."""
    return helpers.own_helpers(plan.facts, plan.context.scopes, plan.style.helper_module)


# ---- names -------------------------------------------------------------------------------


def _choose_names(
    plan: _Plan,
    operands: list[cst.BaseExpression],
    placement: _Placement,
    statement: cst.CSTNode,
) -> tuple[helpers.HelperNames, list[Piece], str, bool]:
    """The helper and alias names, the narrowed operands' and repeats' code, and whether an
    earlier narrowing of the same operands is reused."""
    facts, context = plan.facts, plan.context
    scopes, allocator = context.scopes, context.allocator
    read_in: dict[str, list[Scope]] = {
        "math": [], "repeats": [], "repeated_sum": [], "count_true": [],
    }  # fmt: skip
    for call, _, suffix in plan.wraps:
        for token, key in ((_MATH, "math"), (_REPEATS, "repeats")):
            if token in suffix:
                read_in[key].append(scopes.scope_of(call))
    for call, _, _, factor in plan.replacements:
        read_in["repeated_sum"].append(scopes.scope_of(call))
        for token, key in ((_MATH, "math"), (_REPEATS, "repeats")):
            if token in factor:
                read_in[key].append(scopes.scope_of(call))
    for call, _ in plan.counts:
        read_in["count_true"].append(scopes.scope_of(call))
    for excess in plan.excesses:
        scope = scopes.scope_of(excess.outer)
        read_in["count_true"].append(scope)
        read_in["math"].append(scope)
        if _REPEATS in excess.factor:
            read_in["repeats"].append(scope)
    site = statement if placement.anchor is not None else operands[0]
    read_in["narrow"] = [scopes.scope_of(site)]
    names = helpers.choose_names(facts, scopes, allocator, read_in, plan.style.helper_module)
    operand_code = ", ".join(facts.text_of(o) for o in operands)
    if placement.anchor is not None:
        reused = _earlier_narrowing(plan, statement, operands, operand_code, names.torch.name)
        if reused is not None:
            narrowed, reps, helper = reused
            names = replace(names, narrow=helpers.Name(helper or names.narrow.name, True))
            return names, list(narrowed), reps, True
        key = (placement.anchor[0], operand_code)
        if key not in context.narrowings:
            small = [allocator.local(plan.owner, f"{_stem(facts, o)}_small") for o in operands]
            stem = f"{_stem(facts, operands[0])}_reps" if len(operands) == 1 else "reps"
            context.narrowings[key] = (small, allocator.local(plan.owner, stem))
        small, reps = context.narrowings[key]
        return names, list(small), reps, False
    pair = allocator.local(plan.owner, f"{_stem(facts, operands[0])}_narrowed")
    narrowed = [Bracketed("(", [f"{pair} := {_NARROW}({operand_code})"], ")[0]")]
    narrowed += [f"{pair}[{index}]" for index in range(1, len(operands))]
    return names, narrowed, f"{pair}[-1]", False


def _earlier_narrowing(
    plan: _Plan,
    statement: cst.CSTNode,
    operands: list[cst.BaseExpression],
    operand_code: str,
    torch: str,
) -> tuple[list[str], str, str | None] | None:
    """Names bound by an earlier `a_small, a_reps = helper(<same operands>)` in the same
    block, or by the narrowing written out (`_inline_narrowing`), when nothing between it and
    the operands rebinds or changes them or the names (mutation facts): reuse them rather
    than narrowing the same tensor twice."""
    facts, scopes = plan.facts, plan.context.scopes
    block = facts.parents.get(statement)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    siblings = list(block.body)
    position = next(i for i, s in enumerate(siblings) if s is statement)
    for index in range(position - 1, -1, -1):
        earlier = siblings[index]
        bound = _narrowing_targets(
            facts, scopes, earlier, operand_code, len(operands), torch, plan.style.helper_module
        )
        if bound is None and index > 0:
            bound = _inline_targets(facts, siblings[index - 1], earlier, operand_code)
        if bound is None:
            continue
        narrowed, reps, helper = bound
        watched = {n.value for o in operands for n in walk(o) if isinstance(n, cst.Name)}
        watched |= {*narrowed, reps}
        region = mutation.region_between(
            facts, plan.flow.func, facts.span(earlier)[1], facts.span(operands[0])[0],
            (earlier, operands[0]),
        )
        own = frozenset({helper} if helper else ())
        if mutation.changes(facts, scopes, plan.owner, watched, region, own):
            return None
        return narrowed, reps, helper
    return None


def _narrowing_targets(
    facts: ModuleFacts, scopes: Scopes, statement: cst.CSTNode, operand_code: str, count: int,
    torch: str, helper_module: str | None,
) -> tuple[list[str], str, str] | None:  # fmt: skip
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target, value = assign.targets[0].target, assign.value
    if not isinstance(target, cst.Tuple) or len(target.elements) != count + 1:
        return None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return None
    helper = value.func.value
    if scopes.resolve(value.func) is not scopes.module:
        return None
    if not helpers.narrowing_helper(facts, scopes, helper, torch, helper_module):
        return None
    arguments = ", ".join(facts.text_of(a.value) for a in value.args)
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
    if arguments != operand_code or len(names) != count + 1:
        return None
    return names[:-1], names[-1], helper


def _inline_targets(
    facts: ModuleFacts, first: cst.CSTNode, second: cst.CSTNode, operand_code: str
) -> tuple[list[str], str, None] | None:
    """The names `_inline_narrowing` bound in `first` (the repeats) and `second` (the view)
    for the operand `operand_code`, if that is what the two statements are."""
    names = [_assigned_name(s) for s in (first, second)]
    if None in names or not operand_code.isidentifier():
        return None
    reps, small = names
    written = (
        f"{reps} = tuple(n if st == 0 and n > 1 else 1 for n, st in zip({operand_code}.shape,"
        f" {operand_code}.stride())){small} = {operand_code}[tuple(slice(1) if r > 1 else"
        f" slice(None) for r in {reps})]"
    )
    found = "".join(facts.module.code_for_node(s) for s in (first, second))
    if "".join(found.split()) != "".join(written.split()):
        return None
    return [small], reps, None


def _assigned_name(statement: cst.CSTNode) -> str | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    return target.value if isinstance(target, cst.Name) else None


def _insertion_anchor(facts: ModuleFacts, statement: cst.CSTNode) -> tuple[int, str] | None:
    """Offset just before the statement and the indentation to continue with (None where
    no statement can be inserted: an `elif`, a one-line suite, several statements on a line)."""
    if not isinstance(statement, (cst.SimpleStatementLine, cst.If, cst.For, cst.With)):
        return None
    parent = facts.parents.get(statement)
    if not isinstance(parent, (cst.IndentedBlock, cst.Module)):
        return None
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) != 1:
        return None
    start, _ = facts.span(statement)
    text = facts.source.text
    line_start = facts.source.line_starts[facts.source.line_of(start) - 1]
    indent = text[line_start:start]
    if indent.strip():
        return None
    return start, indent


def _dim(call: cst.Call, *, functional: bool) -> cst.BaseExpression | None:
    dim = reduction_dim(call, functional=functional)
    if dim is STARRED:
        raise NoFix
    return dim


def _has_keyword(call: cst.Call, keyword: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == keyword for a in call.args)


def _stem(facts: ModuleFacts, node: cst.BaseExpression) -> str:
    """A readable base name for the narrowed tensor: `Mask` for `args["Mask"]`, `mask` for
    `mask[:, None].expand(...)`, for `torch.broadcast_to(mask, ...)`, for `self.mask`."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Call) and facts.imports.resolve(node.func) and node.args:
            node = node.args[0].value  # a function of the module: name it after its tensor
        elif isinstance(node, cst.Call):  # a method call: name it after its receiver
            node = node.func.value if isinstance(node.func, cst.Attribute) else node.func
        elif isinstance(node, cst.Attribute):
            if node.attr.value not in torch_ops.VIEW_ATTRIBUTES:
                return node.attr.value
            node = node.value
        elif isinstance(node, cst.Subscript):
            key = node.slice[0].slice if len(node.slice) == 1 else None
            if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString):
                value = key.value.evaluated_value
                if isinstance(value, str) and value.isidentifier():
                    return value
            node = node.value
        else:
            return "tensor"
