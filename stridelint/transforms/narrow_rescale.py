"""The narrow-and-rescale rewrite (PRODUCT.md; semantics doc §0 rules 1-8, §2, §4).

Narrow the broadcast *source* tensors on every dim whose stride is 0 and size > 1 before
the first elementwise op (one statement, inserted just before the one that holds the op),
compute on the small tensors, and rescale each reduction right after it, before any
non-linear op: sums and counts by the repeat count of the dims they reduce, products by a
power, logsumexp by a log; a later full reduction multiplies by the repeats still pending.

The plan follows the materialized value through the function (through local names, as the
dataflow recorded them) and gives up, leaving the finding without a fix, wherever it cannot
prove the rewrite keeps every value: an operand that may be a full tensor, a view of the
materialized tensor, a result that escapes before every narrowed dim was reduced, a second
partial reduction, an operand with side effects, a statement it cannot insert before.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.dataflow import STARRED, FunctionFlow, reduction_dim
from stridelint.analysis.module import ModuleFacts
from stridelint.analysis.names import dotted
from stridelint.analysis.tree import assigned_names, walk
from stridelint.analysis.values import Derived, Scalar, Sink
from stridelint.findings import Applicability, Edit, Fix
from stridelint.transforms import helpers

_PURE_CALLS = torch_ops.VIEW_METHODS | {"size", "stride", "dim"}
_LOW_PRECEDENCE_PARENTS = (
    cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Expr, cst.Arg, cst.Element,
    cst.Comparison, cst.ComparisonTarget, cst.BooleanOperation, cst.IfExp, cst.DictElement,
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


@dataclass
class _Plan:
    facts: ModuleFacts
    flow: FunctionFlow
    reps: str
    names: helpers.HelperNames
    wraps: list[tuple[cst.Call, str, str]] = field(default_factory=list)  # call, prefix, suffix
    # float sums: (call, receiver, other arguments, factor) -> helper(receiver, factor, args)
    replacements: list[tuple[cst.Call, cst.BaseExpression, list[cst.Arg], str]] = field(
        default_factory=list
    )
    visited_loads: set[cst.Name] = field(default_factory=set)
    unsafe_reasons: set[str] = field(default_factory=set)


def fix_sink(facts: ModuleFacts, flow: FunctionFlow, sink: Sink) -> Fix | None:
    """The fix for SL101: narrow the sink's broadcast operands, rescale its reductions."""
    try:
        return _fix(facts, flow, [e for e, _ in sink.operands], sink.node, sink.statement,
                    Chain(integer=sink.integer_result), sink)
    except NoFix:
        return None


def fix_reduction(
    facts: ModuleFacts, flow: FunctionFlow, operand: cst.BaseExpression, statement
) -> Fix | None:
    """The fix for SL102: narrow the reduced tensor itself, rescale the reduction."""
    try:
        return _fix(facts, flow, [operand], operand, statement, Chain(integer=False), None)
    except NoFix:
        return None


def _fix(
    facts: ModuleFacts,
    flow: FunctionFlow,
    operands: list[cst.BaseExpression],
    start: cst.BaseExpression,
    statement: cst.CSTNode | None,
    chain: Chain,
    sink: Sink | None,
) -> Fix:
    anchor = _insertion_anchor(facts, statement)
    for operand in operands:
        _require_pure(facts, operand)
    names = helpers.HelperNames.for_module(facts)
    operand_code = ", ".join(facts.text_of(o) for o in operands)
    reused = _earlier_narrowing(facts, statement, names.narrow, operand_code, len(operands))
    if reused is not None:
        narrowed, reps = reused
    else:
        local_names = _names_in(flow.func)
        narrowed = [_fresh(f"{_stem(o)}_small", local_names) for o in operands]
        stem = f"{_stem(operands[0])}_reps" if len(operands) == 1 else "reps"
        reps = _fresh(stem, local_names)
    plan = _Plan(facts, flow, reps, names)
    _follow(plan, start, chain)
    if sink is not None:
        _require_all_uses_visited(plan, sink)

    source = facts.source
    # Only what the emitted code calls is imported or added (a scale-free chain needs neither).
    emitted = [suffix for _, _, suffix in plan.wraps] + [r[3] for r in plan.replacements]
    edits: list[Edit] = list(
        helpers.module_edits(
            facts,
            names,
            needs_math=any(f"{names.math}." in text for text in emitted),
            needs_repeats=any(f"{names.repeats}(" in text for text in emitted),
            needs_repeated_sum=bool(plan.replacements),
        )
    )
    if reused is None:
        targets = ", ".join([*narrowed, reps])
        indent_start, indent = anchor
        line = f"{targets} = {names.narrow}({operand_code})"
        edits.append(source.edit(indent_start, indent_start, f"{line}{source.newline}{indent}"))
    edits.extend(source.edit(*span) for span in _statement_edits(plan, operands, narrowed))
    applicability = Applicability.UNSAFE if plan.unsafe_reasons else Applicability.SAFE
    message = f"Narrow `{operand_code}` on its stride-0 dims before the op and rescale"
    if plan.unsafe_reasons:
        message += f" (unsafe: {'; '.join(sorted(plan.unsafe_reasons))})"
    return Fix(applicability, message, tuple(edits))


Span = tuple[int, int, str]  # start offset, end offset, replacement text


def _statement_edits(
    plan: _Plan, operands: list[cst.BaseExpression], narrowed: list[str]
) -> list[Span]:
    """The edits inside the function: operand renames, rescaling wraps, and float sums
    replaced by the helper call (with the edits inside them folded into their text)."""
    facts = plan.facts
    edits: list[Span] = [(*facts.span(o), name) for o, name in zip(operands, narrowed)]
    # Prefixes of nested wraps that start at one offset must open outermost first.
    by_position = sorted(plan.wraps, key=lambda w: (facts.span(w[0])[0], -facts.span(w[0])[1]))
    edits += [(facts.span(c)[0], facts.span(c)[0], prefix) for c, prefix, _ in by_position if prefix]
    edits += [(facts.span(c)[1], facts.span(c)[1], suffix) for c, _, suffix in plan.wraps]
    # Innermost first, so an outer replacement folds in the inner one's text.
    for call, receiver, arguments, factor in sorted(
        plan.replacements, key=lambda r: facts.span(r[0])[1] - facts.span(r[0])[0]
    ):
        receiver_text, edits = _fold(facts, edits, facts.span(receiver))
        parts = [receiver_text, factor]
        if arguments:
            span = (facts.span(arguments[0])[0], facts.span(arguments[-1])[1])
            arguments_text, edits = _fold(facts, edits, span)
            parts.append(arguments_text)
        edits.append((*facts.span(call), f"{plan.names.repeated_sum}({', '.join(parts)})"))
    return edits


def _fold(facts: ModuleFacts, edits: list[Span], span: tuple[int, int]) -> tuple[str, list[Span]]:
    """The text of span with the edits inside it applied, and the edits left outside it."""
    start, end = span
    inside = [e for e in edits if start <= e[0] and e[1] <= end]
    outside = [e for e in edits if not (start <= e[0] and e[1] <= end)]
    text = facts.source.text
    pieces, cursor = [], start
    for edit_start, edit_end, content in sorted(inside, key=lambda e: (e[0], e[1])):
        pieces += [text[cursor:edit_start], content]
        cursor = edit_end
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
    assigned_value = plan.flow._values.get(assign.value)
    if not isinstance(assigned_value, Derived) or not assigned_value.exact:
        raise NoFix
    for load, value in plan.flow.loads.items():
        if load.value != name or not isinstance(value, Derived):
            continue
        if not value.sinks & assigned_value.sinks:
            continue
        if not value.exact or value.sinks != assigned_value.sinks:
            raise NoFix
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
        _follow(plan, call, replace(chain, integer=_names_integer_dtype(arguments)))
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


def _names_integer_dtype(arguments: list[cst.BaseExpression]) -> bool:
    names = {(dotted(a) or "").split(".")[-1] for a in arguments}
    integer = {"bool", "int8", "int16", "int32", "int64", "long", "short", "uint8", "int"}
    return bool(names & integer)


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
            factor = f"{plan.names.math}.prod({plan.reps})"
        else:
            factor = f"{plan.names.math}.prod({plan.reps}) // {chain.reduced}"
        reduced = "all"
    else:
        dim_code = plan.facts.module.code_for_node(dim).strip()
        if isinstance(dim, cst.Integer) or (
            isinstance(dim, cst.UnaryOperation) and isinstance(dim.expression, cst.Integer)
        ):
            factor = f"{plan.reps}[{dim_code}]"
        elif isinstance(dim, cst.Name) or isinstance(dim, (cst.Tuple, cst.List)) and all(
            isinstance(e.value, (cst.Integer, cst.UnaryOperation, cst.Name)) for e in dim.elements
        ):
            if name in ("any", "all") and isinstance(dim, (cst.Tuple, cst.List)) and not dim.elements:
                _follow(plan, call, chain)  # `any(dim=())` reduces nothing (semantics §2.1)
                return
            # An empty sequence of dims reduces every dim, but none for any/all (§2.1).
            empty = "" if name not in ("any", "all") else ", reduces_all_when_empty=False"
            factor = f"{plan.names.repeats}({plan.reps}, {dim_code}{empty})"
        else:
            raise NoFix
        reduced = factor
    if scale == "mul":
        exact = chain.integer or name in torch_ops.COUNT_REDUCTIONS
        dtype = next((a.value for a in call.args if a.keyword and a.keyword.value == "dtype"), None)
        if dtype is not None and not _names_integer_dtype([dtype]):
            exact = False  # `sum(dtype=torch.float32)` of counts still rounds
        if not exact:
            plan.unsafe_reasons.add("a float sum of the narrowed tensor rounds differently")
        if not exact and name == "sum" and not _has_keyword(call, "dtype"):
            _replace_with_repeated_sum(plan, call, factor, functional)
        else:
            _wrap(plan, call, f" * {_operand(factor)}", "mul")
    elif scale == "pow":
        if not chain.integer:
            plan.unsafe_reasons.add("a float product of the narrowed tensor rounds differently")
        _wrap(plan, call, f" ** {_operand(factor)}", "pow")
    elif scale == "log":
        plan.unsafe_reasons.add("logsumexp of the narrowed tensor rounds differently")
        _wrap(plan, call, f" + {plan.names.math}.log({factor})", "add")
    elif name in ("mean", "nanmean"):
        plan.unsafe_reasons.add("the mean of the narrowed tensor rounds differently")
    integer = chain.integer and name not in ("mean", "nanmean", "logsumexp")
    if name in torch_ops.COUNT_REDUCTIONS:
        integer = True
    _follow(plan, call, Chain(reduced, integer))


def _operand(factor: str) -> str:
    """The factor as an operand of `*` or `**`: a quotient needs parentheses."""
    return f"({factor})" if " // " in factor else factor


def _wrap(plan: _Plan, call: cst.Call, tail: str, operator: str) -> None:
    needs_parens = not call.lpar and not _binds_looser(plan.facts.parents.get(call), call, operator)
    prefix, suffix = ("(", f"{tail})") if needs_parens else ("", tail)
    plan.wraps.append((call, prefix, suffix))


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
    for expression in expressions:
        if _is_literal(expression):
            continue
        if not isinstance(plan.flow._values.get(expression), Scalar):
            raise NoFix  # it may be a tensor that is not broadcast along the narrowed dims


def _is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _is_literal(node.expression)
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _makes_float(owner: cst.CSTNode, others: list[cst.BaseExpression]) -> bool:
    """Whether the op may turn bool/int values into floats: a division, a power, or any
    operand that is not an int or bool literal (a scalar name may hold a float)."""
    if isinstance(owner, cst.BinaryOperation) and isinstance(owner.operator, (cst.Divide, cst.Power)):
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
    """Moving the operand's evaluation one statement earlier must not change anything."""
    for node in walk(operand):
        if isinstance(node, cst.Call):
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
            qualified = facts.imports.resolve(node.func)
            if method not in _PURE_CALLS and qualified not in torch_ops.BROADCAST_FUNCTIONS:
                raise NoFix
        elif isinstance(node, (cst.NamedExpr, cst.Await, cst.Yield, cst.Lambda)):
            raise NoFix


def _earlier_narrowing(
    facts: ModuleFacts, statement: cst.CSTNode, helper: str, operand_code: str, count: int
) -> tuple[list[str], str] | None:
    """Names bound by an earlier `a_small, a_reps = helper(<same operands>)` in the same block,
    when nothing between it and `statement` rebinds them or the operands: reuse them rather
    than narrowing the same tensor twice."""
    block = facts.parents.get(statement)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    siblings = list(block.body)
    position = next(i for i, s in enumerate(siblings) if s is statement)
    for index in range(position - 1, -1, -1):
        earlier = siblings[index]
        bound = _narrowing_targets(facts, earlier, helper, operand_code, count)
        if bound is None:
            continue
        watched = set(bound[0]) | {bound[1]} | _names_in(_operands_expression(earlier))
        between = siblings[index + 1 : position]
        if any(assigned_names(s) & watched for s in between):
            return None
        return bound
    return None


def _narrowing_targets(
    facts: ModuleFacts, statement: cst.CSTNode, helper: str, operand_code: str, count: int
) -> tuple[list[str], str] | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target, value = assign.targets[0].target, assign.value
    if not isinstance(target, cst.Tuple) or len(target.elements) != count + 1:
        return None
    if not (isinstance(value, cst.Call) and dotted(value.func) == helper):
        return None
    arguments = ", ".join(facts.text_of(a.value) for a in value.args)
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
    if arguments != operand_code or len(names) != count + 1:
        return None
    return names[:-1], names[-1]


def _operands_expression(statement: cst.SimpleStatementLine) -> cst.CSTNode:
    return statement.body[0].value


def _insertion_anchor(facts: ModuleFacts, statement: cst.CSTNode | None) -> tuple[int, str]:
    """Offset just before the statement and the indentation to continue with."""
    if not isinstance(statement, (cst.SimpleStatementLine, cst.If, cst.For)):
        raise NoFix
    parent = facts.parents.get(statement)
    if not isinstance(parent, (cst.IndentedBlock, cst.Module)):
        raise NoFix  # e.g. an `elif`, whose test runs only when the `if` test failed
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) != 1:
        raise NoFix
    start, _ = facts.span(statement)
    text = facts.source.text
    line_start = facts.source.line_starts[facts.source.line_of(start) - 1]
    indent = text[line_start:start]
    if indent.strip():
        raise NoFix
    return start, indent


def _dim(call: cst.Call, *, functional: bool) -> cst.BaseExpression | None:
    dim = reduction_dim(call, functional=functional)
    if dim is STARRED:
        raise NoFix
    return dim


def _has_keyword(call: cst.Call, keyword: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == keyword for a in call.args)


def _names_in(func: cst.FunctionDef) -> set[str]:
    return {n.value for n in walk(func) if isinstance(n, cst.Name)}


def _stem(node: cst.BaseExpression) -> str:
    """A readable base name for the narrowed tensor: `Mask` for `args["Mask"]`, `mask` for
    `mask[:, None].expand(...)`, `mask` for `self.mask`."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Call):  # a method call: name it after its receiver
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


def _fresh(name: str, taken: set[str]) -> str:
    candidate, counter = name, 1
    while candidate in taken:
        candidate = f"{name}_{counter}"
        counter += 1
    taken.add(candidate)
    return candidate
