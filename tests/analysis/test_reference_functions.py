"""ModuleFacts.reference_function: code inside a function named as a reference implementation."""

from __future__ import annotations

import libcst as cst
import pytest

from tests.analysis.parsed import facts_of, node


@pytest.mark.parametrize(
    ("name", "reference"),
    [("naive_attn", True), ("ref_gemm", True), ("_routing_reference", True), ("oracle", True),
     ("attn_ref", True), ("prefetch", False), ("reformat", False), ("naiveish", False)],
)  # fmt: skip
def test_a_function_is_a_reference_by_a_word_of_its_name(name, reference):
    facts = facts_of(f"def {name}(m, n):\n    return m.expand(n, -1)\n")
    found = facts.reference_function(node(facts, "m.expand(n, -1)", cst.Call))
    assert found == (name if reference else None)


def test_a_function_nested_in_a_reference_is_one():
    facts = facts_of(
        "def gemm_reference(a, s):\n    def scaled(x):\n        return x * s.expand_as(x)\n"
        "    return scaled(a)\n"
    )
    assert facts.reference_function(node(facts, "s.expand_as(x)", cst.Call)) == "gemm_reference"
