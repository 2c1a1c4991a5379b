"""spans: the code of an expression with its own parentheses, and as an operand."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis.spans import operand_code, outer_span
from tests.analysis.parsed import facts_of, node


def _assigned(code: str):
    facts = facts_of(code)
    return facts, facts.module.body[0].body[0].value


def test_outer_span_includes_the_nodes_own_parentheses():
    facts, value = _assigned("y = (a + b)\n")
    start, end = outer_span(facts, value)
    assert facts.source.text[start:end] == "(a + b)"


def test_operand_code_parenthesizes_an_operation():
    facts, value = _assigned("y = a + b\n")
    assert operand_code(facts, value) == "(a + b)"


def test_operand_code_keeps_an_atom_bare():
    facts, value = _assigned("y = x[0].t()\n")
    assert operand_code(facts, value) == "x[0].t()"


def test_operand_code_keeps_existing_parentheses_once():
    facts, value = _assigned("y = (a + b)\n")
    assert operand_code(facts, value) == "(a + b)"


def test_loose_operand_drops_its_parentheses_on_one_line():
    facts = facts_of("y = f((a + b))\n")
    argument = node(facts, "a + b", cst.BinaryOperation)
    assert operand_code(facts, argument, loose=True) == "a + b"


def test_loose_operand_keeps_its_parentheses_across_lines():
    facts = facts_of("y = f((a +\n       b))\n")
    argument = node(facts, "a +\n       b", cst.BinaryOperation)
    assert operand_code(facts, argument, loose=True) == "(a +\n       b)"
