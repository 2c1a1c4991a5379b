"""Which expressions hold a tensor's strides, within a function and through small helpers.

Wrappers rarely compare `x.stride(d)` with 0 in place: they bind strides to names
(`s = x.stride()`, `s_r, s_0, s_1 = x.stride()`) or get them from a helper that returns a
tuple of them (`s_r, s_0, s_1 = _strides(mask, dim)`), and compare later, in an `assert`,
an `if` or a keyword flag `BROADCAST_R=(s_r == 0)`. A stride compared with 0 is evidence
that the tensor may be broadcast (ARCHITECTURE.md, POSSIBLE).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from stridelint.analysis.names import dotted
from stridelint.analysis.tree import assignment_targets, descendants


HelperLookup = Callable[[str], "StrideHelper | None"]


@dataclass(frozen=True)
class StrideHelper:
    """A module function whose every return value holds strides of one parameter."""

    name: str
    position: int  # of the parameter whose strides it returns
    parameter: str


def is_stride_call(node: cst.BaseExpression) -> bool:
    """`<anything>.stride(...)`."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "stride"
    )


def stride_call_owner(node: cst.BaseExpression) -> str | None:
    """`x.stride(d)` / `x.stride()` -> "x" (a dotted name), else None."""
    if is_stride_call(node):
        return dotted(node.func.value)  # type: ignore[attr-defined]
    return None


def stride_owner(node: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """Whose strides `node` reads: `x.stride(d)`, `x.stride()[d]`, `s` or `s[d]` for an alias."""
    owner = stride_call_owner(node)
    if owner:
        return owner
    if isinstance(node, cst.Subscript):
        return stride_call_owner(node.value) or (
            aliases.get(node.value.value) if isinstance(node.value, cst.Name) else None
        )
    if isinstance(node, cst.Name):
        return aliases.get(node.value)
    return None


def stride_aliases(func: cst.FunctionDef, helper_of: HelperLookup | None = None) -> dict[str, str]:
    """Names bound to a tensor's strides in `func`: `s = x.stride(1)`, `s0, s1 = x.stride()`,
    `s = x.stride()[0]`, and the targets of a call to a stride helper (`helper_of` names one)."""
    aliases: dict[str, str] = {}
    for assign in descendants(func.body, cst.Assign):
        owner = stride_owner(assign.value, aliases) or (
            _helper_owner(assign.value, helper_of) if helper_of else None
        )
        if owner is None:
            continue
        for element in assignment_targets(assign):
            if isinstance(element, cst.Name):
                aliases[element.value] = owner
    return aliases


def _helper_owner(value: cst.BaseExpression, helper_of: HelperLookup) -> str | None:
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
        return None
    helper = helper_of(value.func.value)
    if helper is None:
        return None
    positional = [a for a in value.args if a.keyword is None]
    for index, arg in enumerate(positional):
        if arg.star:
            return None
        if index == helper.position:
            return dotted(arg.value)
    for arg in value.args:
        if arg.keyword is not None and arg.keyword.value == helper.parameter:
            return dotted(arg.value)
    return None


def stride_helper(func: cst.FunctionDef) -> StrideHelper | None:
    """The summary of a function that returns strides of one of its parameters: every
    return is strides of that parameter, or integer literals (for a None input). Asked only
    for functions whose results a caller unpacks, so kernels are never summarized."""
    params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
    if not params:
        return None
    aliases = stride_aliases(func)
    owners: set[str] = set()
    for statement in descendants(func.body, cst.Return):
        returned = _returned_owners(statement.value, aliases)
        if returned is None:
            return None
        owners |= returned
    if len(owners) != 1:
        return None
    (owner,) = owners
    if owner not in params:
        return None
    return StrideHelper(func.name.value, params.index(owner), owner)


def _returned_owners(value: cst.BaseExpression | None, aliases: dict[str, str]) -> set[str] | None:
    """Whose strides a return value holds; None when it holds anything but strides or literals."""
    if value is None:
        return None
    elements = (
        [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
    )
    owners = set()
    for element in elements:
        if isinstance(element, cst.Integer):
            continue
        owner = stride_owner(element, aliases)
        if owner is None:
            return None
        owners.add(owner)
    return owners
