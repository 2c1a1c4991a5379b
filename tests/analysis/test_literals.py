"""literals: integers and subscript entries, as the code spells them out."""

from __future__ import annotations

import libcst as cst
import pytest

from stridelint.analysis import literals


@pytest.mark.parametrize(("code", "value"), [("3", 3), ("-1", -1), ("0x10", 16)])
def test_literal_int_reads_an_integer_and_its_negation(code, value):
    assert literals.literal_int(cst.parse_expression(code)) == value


@pytest.mark.parametrize("code", ["n", "2 * 3", "- -1", "1.0"])
def test_literal_int_is_none_for_anything_computed(code):
    assert literals.literal_int(cst.parse_expression(code)) is None


@pytest.mark.parametrize(
    ("index", "kind"),
    [
        (":", literals.SLICE),
        ("1:", literals.RANGE),
        ("::2", literals.RANGE),
        ("...", literals.ELLIPSIS),
        ("None", literals.NEW_DIM),
        ("-1", literals.INTEGER),
        ("i", literals.OTHER),
        ("i + 1", literals.OTHER),
    ],
)
def test_index_kind_names_what_one_entry_does(index, kind):
    subscript = cst.parse_expression(f"x[{index}]")
    assert literals.index_kind(subscript.slice[0].slice) == kind
