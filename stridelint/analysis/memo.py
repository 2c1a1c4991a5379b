"""Memoized functions: an early `return self._cached` before the work.

A function that first returns a value it keeps on `self` when a key matches
(`if self._key == key: return self._value`) runs the code after that test once per key, not
once per call: a materialization there is a one-time cost (size-aware findings).
"""

from __future__ import annotations

import libcst as cst

from stridelint.analysis.tree import walk


def returns_a_cached_value_before(func: cst.FunctionDef, statement: cst.CSTNode | None) -> bool:
    """Whether a top-level `if` of `func`'s body, before the top-level statement holding
    `statement`, ends by returning an attribute of its first parameter (`self`)."""
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
    receiver = _first_parameter(func)
    if receiver is None or statement is None:
        return False
    for top in body:
        if top is statement or any(node is statement for node in walk(top)):
            return False
        if isinstance(top, cst.If) and _ends_returning_an_attribute_of(top.body, receiver):
            return True
    return False


def _first_parameter(func: cst.FunctionDef) -> str | None:
    params = func.params.posonly_params or func.params.params
    return params[0].name.value if params else None


def _ends_returning_an_attribute_of(block: cst.BaseSuite, receiver: str) -> bool:
    statements = block.body if isinstance(block, cst.IndentedBlock) else (block,)
    last = statements[-1] if statements else None
    if not isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) or not last.body:
        return False
    small = last.body[-1]
    if not isinstance(small, cst.Return) or small.value is None:
        return False
    value = small.value
    return (
        isinstance(value, cst.Attribute)
        and isinstance(value.value, cst.Name)
        and value.value.value == receiver
    )
