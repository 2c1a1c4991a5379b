"""Memoized functions: an early `return self._cached` before the work that fills it.

A function that first returns a value it keeps on `self` when a key matches
(`if self._key == key: return self._value`), and later stores that attribute
(`self._value = ...`), runs the code after the test once per key, not once per call: a
materialization there is a one-time cost (size-aware findings). An early return of an
attribute the function never stores (`if x is None: return self.default`) is no cache.
"""

from __future__ import annotations

import libcst as cst

from stridelint.analysis.tree import assignment_targets, descendants, walk


def returns_a_cached_value_before(func: cst.FunctionDef, statement: cst.CSTNode | None) -> bool:
    """Whether a top-level `if` of `func`'s body, before the top-level statement holding
    `statement`, ends by returning an attribute of its first parameter (`self`) that the
    function stores later."""
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
    receiver = _first_parameter(func)
    if receiver is None or statement is None:
        return False
    stored: set[str] | None = None  # read once, at the first `if` that returns an attribute
    for top in body:
        if top is statement or any(node is statement for node in walk(top)):
            return False
        returned = _returned_attribute(top.body, receiver) if isinstance(top, cst.If) else None
        if returned is not None:
            stored = _stored_attributes(func, receiver) if stored is None else stored
            if returned in stored:
                return True
    return False


def _stored_attributes(func: cst.FunctionDef, receiver: str) -> set[str]:
    """The attributes of `receiver` the function assigns (`self.a = ...`, `self.a, self.b =
    ...`)."""
    return {
        element.attr.value  # type: ignore[attr-defined]
        for assign in descendants(func.body, cst.Assign)
        for element in assignment_targets(assign)
        if _attribute_of(element, receiver)
    }


def _first_parameter(func: cst.FunctionDef) -> str | None:
    params = func.params.posonly_params or func.params.params
    return params[0].name.value if params else None


def _returned_attribute(block: cst.BaseSuite, receiver: str) -> str | None:
    """The attribute of `receiver` the block ends by returning (`return self._value`)."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else (block,)
    last = statements[-1] if statements else None
    if not isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) or not last.body:
        return None
    small = last.body[-1]
    if not isinstance(small, cst.Return) or not _attribute_of(small.value, receiver):
        return None
    return small.value.attr.value  # type: ignore[union-attr]


def _attribute_of(node: cst.CSTNode | None, receiver: str) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == receiver
    )
