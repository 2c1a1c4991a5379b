"""Keep a broadcast tensor a stride-0 view: hoist an op before the expand, or drop a copy.

`x.expand(s).to(t)` materializes the logical size; `x.to(t).expand(s)` computes on the
storage and expands the result, with the same values (elementwise ops commute with
expand, semantics §2.4). The price is the layout: the result is now a stride-0 view, which
a later in-place write, `.view(-1)`, a kernel that assumes a dense layout or `data_ptr`
arithmetic can tell apart (semantics §1.3, §2.3); the rules decide from
`analysis.uses.uses_of` whether that is safe. Only the rewrites live here: the facts they
rest on (the expand an operand comes from, purity, uses) are the analysis' own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis.spans import operand_code, outer_span
from stridelint.findings import Applicability, Edit, Fix

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.provenance import ExpandSource


def hoist(
    facts: ModuleFacts,
    node: cst.BaseExpression,
    sources: list[tuple[cst.BaseExpression, ExpandSource]],
) -> Edit | None:
    """Rewrite node (an op on the broadcast operands) as the op on the pre-expand tensors,
    expanded: `x.expand(s).to(t)` -> `x.to(t).expand(s)`; `1.0 - e` -> `(1.0 - x).expand_as(e)`."""
    suffixes = {source.suffix for _, source in sources}
    if len(suffixes) == 1:
        suffix = suffixes.pop()
    elif all(source.name for _, source in sources):
        torch = facts.imports.local_name_for("torch")
        if torch is None:
            return None
        shapes = ", ".join(dict.fromkeys(f"{source.name}.shape" for _, source in sources))
        suffix = f".expand({torch}.broadcast_shapes({shapes}))"
    else:
        return None  # expands to sizes we cannot show are equal
    start, end = outer_span(facts, node)
    replaced = [
        (outer_span(facts, operand), _code_at(facts, operand, source))
        for operand, source in sources
    ]
    pieces, cursor = [], start
    for (operand_start, operand_end), pre in sorted(replaced):
        if operand_start < cursor:
            return None
        pieces += [facts.source.text[cursor:operand_start], pre]
        cursor = operand_end
    pieces.append(facts.source.text[cursor:end])
    text = "".join(pieces)
    if not (node.lpar or isinstance(node, (cst.Call, cst.Attribute, cst.Subscript))):
        text = f"({text})"
    return facts.source.edit(start, end, text + suffix)


def _code_at(facts: ModuleFacts, operand: cst.BaseExpression, source: ExpandSource) -> str:
    loose = isinstance(facts.parents.get(operand), (cst.Arg, cst.Element, cst.Index))
    return operand_code(facts, source.pre_node, loose=loose)


def drop_call(facts: ModuleFacts, call: cst.Call) -> Edit | None:
    """Replace `receiver.method(...)` by `receiver`; a statement left as `x = x` goes away."""
    if not isinstance(call.func, cst.Attribute):
        return None
    receiver = call.func.value
    statement = facts.parents.get(facts.parents.get(call))
    assign = facts.parents.get(call)
    if (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and facts.text_of(assign.targets[0].target) == facts.text_of(receiver)
    ):
        return _delete_line(facts, statement)
    start, end = outer_span(facts, call)
    text = operand_code(facts, receiver)
    if call.lpar:
        text = f"({text})"
    return facts.source.edit(start, end, text)


def _delete_line(facts: ModuleFacts, statement: cst.SimpleStatementLine) -> Edit | None:
    if statement.trailing_whitespace.comment is not None:
        return None  # keep the comment's line rather than guess where it belongs
    source = facts.source
    start, end = facts.span(statement)
    first, last = source.line_of(start), source.line_of(max(start, end - 1))
    if source.text[source.line_starts[first - 1] : start].strip():
        return None
    line_end = source.line_starts[last] if last < len(source.line_starts) else len(source.text)
    return source.edit(source.line_starts[first - 1], line_end, "")


def fix(applicability: Applicability, message: str, edit: Edit | None) -> Fix | None:
    """The one-edit Fix, or no fix when the rewrite gave up (edit is None)."""
    return Fix(applicability, message, (edit,)) if edit is not None else None
