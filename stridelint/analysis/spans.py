"""The source text of an expression as it stands: with its own parentheses, and as an operand.

An expand is described by code (the tensor before it, the `.expand(...)` suffix), and a fix
splices code back in; both must agree on where an expression starts and ends and on when
it needs parentheses. These extend ModuleFacts' `span`/`text_of` (which ignore a node's own
parentheses) for the analysis that describes expressions and the transforms that move them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts

# Expressions that can stand as an operand anywhere without parentheses.
_ATOMS = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
    cst.SimpleString, cst.ConcatenatedString, cst.Tuple, cst.List,
)  # fmt: skip


def outer_span(facts: ModuleFacts, node: cst.BaseExpression) -> tuple[int, int]:
    """The character offsets of node with its own parentheses."""
    if node.lpar and node.rpar:
        return facts.span(node.lpar[0])[0], facts.span(node.rpar[-1])[1]
    return facts.span(node)


def operand_code(facts: ModuleFacts, node: cst.BaseExpression, *, loose: bool = False) -> str:
    """The code of node, parenthesized unless it is an atom or already in parentheses; in a
    `loose` place (an argument), without its own parentheses when it fits on one line."""
    start, end = outer_span(facts, node)
    text = facts.source.text[start:end]
    if loose and node.lpar:
        inner = facts.text_of(node)
        return inner if "\n" not in inner else text
    if node.lpar or isinstance(node, _ATOMS) or loose:
        return text
    return f"({text})"
