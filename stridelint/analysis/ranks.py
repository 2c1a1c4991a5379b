"""A lower bound on the number of dims of a tensor expression, read from the code that made it.

A fix that indexes a per-dim tuple with a literal dim (`reps[-1]`) is only valid when the
tensor has at least one dim: a 0-d tensor accepts `dim=0` and `dim=-1` in reductions, but its
tuple of sizes is empty. `x.expand(a, b)`, `torch.broadcast_to(x, (a, b))`, `x[None]` and
`x.unsqueeze(d)` say how many dims there are at least; a name counts when every binding of it
is an assignment of such an expression; anything else is 0 (unknown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.values import Scalar

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import FunctionFlow
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.scopes import Scopes

_KEEP_RANK = torch_ops.VIEW_METHODS - {"view", "view_as", "squeeze", "select", "unflatten",
                                       "expand", "expand_as", "broadcast_to", "unsqueeze",
                                       "narrow", "unfold", "diagonal"}  # fmt: skip
_DEPTH = 8


def minimum_rank(
    facts: ModuleFacts, scopes: Scopes, flow: FunctionFlow, node: cst.BaseExpression, depth: int = 0
) -> int:
    """At least how many dims the tensor `node` evaluates to has (0 when unknown)."""
    if depth > _DEPTH:
        return 0
    if isinstance(node, cst.Name):
        return _name_rank(facts, scopes, flow, node, depth)
    if isinstance(node, cst.Subscript):
        return _subscript_rank(node)
    if not isinstance(node, cst.Call):
        return 0
    qualified = facts.imports.resolve(node.func) or ""
    positional = [a for a in node.args if a.keyword is None]
    if qualified in torch_ops.BROADCAST_FUNCTIONS and len(positional) == 2:
        return _literal_length(positional[1].value)
    if not isinstance(node.func, cst.Attribute) or qualified:
        return 0
    method = node.func.attr.value
    receiver = node.func.value
    if method == "expand":
        return _expand_rank(flow, positional)
    if method == "unsqueeze":
        return max(1, minimum_rank(facts, scopes, flow, receiver, depth + 1) + 1)
    if method in _KEEP_RANK:
        return minimum_rank(facts, scopes, flow, receiver, depth + 1)
    return 0


def _expand_rank(flow: FunctionFlow, positional: list[cst.Arg]) -> int:
    if any(a.star for a in positional):  # `expand(n, *x.shape)`: at least the int sizes
        return sum(1 for a in positional if not a.star and _is_int(flow, a.value))
    if len(positional) == 1:  # `expand(n)` or `expand(shape)`: an int gives one dim
        value = positional[0].value
        if isinstance(value, (cst.Tuple, cst.List)):
            return _literal_length(value)
        return 1 if _is_int(flow, value) else 0
    return len(positional)


def _is_int(flow: FunctionFlow, node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, cst.Integer) or isinstance(flow.value_of(node), Scalar)


def _literal_length(node: cst.BaseExpression) -> int:
    """At least how many items a tuple or list display holds (starred items may hold none)."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return sum(1 for e in node.elements if not isinstance(e, cst.StarredElement))
    return 0


def _subscript_rank(node: cst.Subscript) -> int:
    """`x[None]`, `x[:, None]`: every `None` adds a dim; int indexes remove one of x's dims,
    so only the `None`s are certain (and only with basic indexes)."""
    added = 0
    for element in node.slice:
        inner = element.slice
        if isinstance(inner, cst.Slice):
            continue
        value = inner.value
        if isinstance(value, cst.Name) and value.value == "None":
            added += 1
        elif not isinstance(value, (cst.Integer, cst.Ellipsis, cst.UnaryOperation)):
            return 0  # a tensor index may change the dims in other ways
    return added


def _name_rank(
    facts: ModuleFacts, scopes: Scopes, flow: FunctionFlow, load: cst.Name, depth: int
) -> int:
    owner = scopes.resolve(load)
    if owner is None or owner.kind != "function":
        return 0
    bindings = owner.bindings.get(load.value, [])
    ranks = []
    for binding in bindings:
        assign = facts.parents.get(facts.parents.get(binding.node))
        if binding.kind != "assign" or not isinstance(assign, cst.Assign):
            return 0
        if assign.targets[-1].target is not binding.node:
            return 0
        ranks.append(minimum_rank(facts, scopes, flow, assign.value, depth + 1))
    return min(ranks, default=0)
