"""Which kernel parameter each argument of a launch binds, as real launches are written.

Wrappers launch with positional arguments, then `*splats` (`*x.stride()`, `*fn.args`), then
keywords. Before the first splat an argument's position names its parameter; a keyword
always names one. After a splat the position is unknown: the argument is mapped only when
its own name identifies exactly one parameter that nothing else binds (`mask` -> `Mask`),
otherwise it is left out. Never a guess: a wrong mapping would put one tensor's facts on
another's hook argument.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import libcst as cst

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import CallSite
    from stridelint.analysis.values import Value


def launch_parameters(
    site: CallSite, parameters: tuple[str, ...]
) -> Iterator[tuple[str, cst.BaseExpression, Value]]:
    """(parameter name, argument expression, its value) for every argument that can be mapped."""
    bound: set[str] = set()
    last_position = -1
    pending: list[tuple[cst.BaseExpression, Value]] = []
    mapped: list[tuple[str, cst.BaseExpression, Value]] = []
    for key, expr, value in site.arguments:
        if isinstance(key, int):
            if key < len(parameters):
                mapped.append((parameters[key], expr, value))
                bound.add(parameters[key])
                last_position = max(last_position, key)
        elif isinstance(key, str):
            if key in parameters:
                mapped.append((key, expr, value))
                bound.add(key)
        else:
            pending.append((expr, value))
    free = [p for i, p in enumerate(parameters) if i > last_position and p not in bound]
    for expr, value in pending:
        param = _parameter_named_by(expr, free)
        if param is not None:
            mapped.append((param, expr, value))
            free.remove(param)
    yield from mapped


def _parameter_named_by(expr: cst.BaseExpression, free: list[str]) -> str | None:
    """The one free parameter spelled like the argument's name, ignoring case."""
    if not isinstance(expr, cst.Name):
        return None
    matches = [p for p in free if p.lower() == expr.value.lower()]
    return matches[0] if len(matches) == 1 else None
