"""How messages name things: the dims a finding says are broadcast, the logical size it gives
(in bytes when the code shows every size and the dtype), the op and the tensor each once."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from stridelint.analysis.values import Broadcast, State
from stridelint.config import Config
from stridelint.engine import lint_text
from stridelint.rules import wording
from stridelint.source import decode
from tests.analysis.parsed import facts_of, node, statement_of

# ---- which dims are broadcast -------------------------------------------------------------


def test_one_broadcast_dim_is_named_in_the_singular():
    assert wording.dims_phrase({2}, {0, 2}) == " over dim 2"


def test_several_broadcast_dims_are_listed_in_order():
    assert wording.dims_phrase({2, 0}, {0, 2}) == " over dims 0, 2"


def test_candidates_only_say_the_broadcast_is_among_them():
    assert wording.dims_phrase(set(), {1, 0}) == " over some of dims 0, 1"


def test_no_known_dims_say_nothing():
    assert wording.dims_phrase(set(), set()) == ""


# ---- how large the materialization is -----------------------------------------------------


def test_symbolic_sizes_are_a_product_of_elements():
    assert wording.size_phrase(("b", "h", "s"), set(), 4) == " (b × h × s elements)"


def test_compound_sizes_are_parenthesized():
    assert wording.size_phrase(("rows", "dim // 2"), set(), None) == " (rows × (dim // 2) elements)"


def test_dims_expanded_to_size_one_are_left_out():
    assert wording.size_phrase(("bsz", "1", "t", "s"), {1}, None) == " (bsz × t × s elements)"


def test_one_symbolic_size_says_nothing_more_than_the_dim():
    assert wording.size_phrase(("batch",), set(), 4) == ""


@pytest.mark.parametrize("sizes", [("rows", "-1"), ("-1", "8192"), ("n", "*shape")])
def test_unknown_sizes_say_nothing(sizes):
    assert wording.size_phrase(sizes, set(), 1) == ""


def test_literal_sizes_with_a_known_dtype_give_bytes():
    assert wording.size_phrase(("65536", "4", "8192"), set(), 1) == " (65536×4×8192 → 2 GiB)"


def test_one_literal_size_with_a_known_dtype_gives_bytes():
    assert wording.size_phrase(("8192",), set(), 4) == " (8192 → 32 KiB)"


def test_literal_sizes_without_a_dtype_give_elements():
    assert wording.size_phrase(("16", "32"), set(), None) == " (16×32 elements)"


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (512, "512 B"),
        (1024, "1 KiB"),
        (256 * 1024, "256 KiB"),
        (3 * 2**20 // 2, "1.5 MiB"),
        (6 * 2**20, "6 MiB"),
        (2**31, "2 GiB"),
        (1_200_000_000, "1.1 GiB"),
        (40 * 2**30 + 2**29, "40 GiB"),
        (3 * 2**40, "3 TiB"),
    ],
)
def test_byte_sizes_use_binary_units(count, shown):
    assert wording.byte_size(count) == shown


# ---- the tensor and the op, each named once -----------------------------------------------

DEFINITE = Broadcast(State.DEFINITE, ())
POSSIBLE = Broadcast(State.POSSIBLE, ())


def test_a_tensor_with_details_is_named_before_them():
    assert wording.named("m", "broadcast", " over dim 0") == "`m`, broadcast over dim 0"


def test_a_tensor_without_details_is_the_broadcast_one():
    assert wording.named("m", "possibly broadcast", "") == "the possibly broadcast `m`"


def test_certainty_says_possibly_only_for_a_suspicion():
    assert wording.certainty(DEFINITE) == "broadcast"
    assert wording.certainty(POSSIBLE) == "possibly broadcast"


def test_tensor_reads_dims_sizes_and_dtype_from_the_expand():
    facts = facts_of(
        "def f(mask):\n"
        "    m = mask[None, :, None].expand(65536, 4, 8192)\n"
        "    return (m != 0).sum()\n"
    )
    load = node(facts, "m", cst.Name, nth=-1)
    comparison = node(facts, "m != 0", cst.Comparison)
    where = statement_of(facts, load)
    shown = wording.tensor(facts, load, where, DEFINITE, comparison)
    assert shown == "`m`, broadcast over dims 0, 2 (65536×4×8192 → 2 GiB)"
    assert wording.tensor(facts, load, where, DEFINITE) == (
        "`m`, broadcast over dims 0, 2 (65536×4×8192 elements)"  # `m`'s own dtype: unknown
    )
    assert wording.tensor(facts, load, where, DEFINITE, size=False) == (
        "`m`, broadcast over dims 0, 2"
    )


def test_a_long_operand_is_elided_from_the_op_and_a_method_on_it_is_the_method():
    code = "y = x[None, :].expand(rows, -1).float()\n"
    facts = facts_of(code)
    operand = node(facts, "x[None, :].expand(rows, -1)", cst.Call)
    cast = node(facts, "x[None, :].expand(rows, -1).float()", cst.Call)
    assert wording.op(facts, cast, operand) == ".float()"


def test_a_short_operand_stays_in_the_op():
    facts = facts_of("y = (mask != 0).sum()\n")
    comparison = node(facts, "mask != 0", cst.Comparison)
    assert wording.op(facts, comparison, node(facts, "mask", cst.Name)) == "mask != 0"


def test_around_keeps_a_function_call_and_its_other_arguments():
    facts = facts_of("y = torch.sum(m != 0, dim=1)\n")
    call = node(facts, "torch.sum(m != 0, dim=1)", cst.Call)
    assert wording.around(facts, call, node(facts, "m != 0", cst.Comparison)) == "torch.sum(…, dim=1)"


def test_around_a_parenthesized_op_shows_the_method():
    facts = facts_of("y = (m != 0).sum(dim=-1)\n")
    call = node(facts, "(m != 0).sum(dim=-1)", cst.Call)
    assert wording.around(facts, call, node(facts, "m != 0", cst.Comparison)) == ".sum(dim=-1)"


def test_around_a_node_elsewhere_is_the_plain_snippet():
    facts = facts_of("m = mask != 0\nn = m.sum()\n")
    call = node(facts, "m.sum()", cst.Call)
    assert wording.around(facts, call, node(facts, "mask != 0", cst.Comparison)) == "m.sum()"


# ---- whole messages -----------------------------------------------------------------------


def _messages(code: str) -> list[str]:
    source = decode(textwrap.dedent(code).encode())
    findings = lint_text(source, Config(root=Path.cwd(), source=None), None).findings
    return [f"{f.code} {f.message}" for f in findings]


def test_the_issue_model_message():
    code = """
    def f(mask):
        m = mask[None, :, None].expand(65536, 4, 8192)
        return (m != 0).sum()
    """
    assert _messages(code) == [
        (
            "SL101 `m != 0` materializes `m`, broadcast over dims 0, 2 (65536×4×8192 → 2 GiB), "
            "then `.sum()` reduces it: narrow it before the op and rescale"
        )
    ]


def test_messages_name_the_tensor_once_and_leave_the_evidence_out():
    code = """
    def f(x, rows):
        xb = x.expand(rows, -1)
        y = xb * 2
        xb.add_(1)
        return y, xb.sum()
    """
    messages = _messages(code)
    assert len(messages) == 3, messages
    for message in messages:
        assert "stride-0 view" not in message and "x.expand" not in message, message
        assert message.count("`xb`") == 1, message
        assert "broadcast over dim 0" in message and "possibly" not in message, message


def test_a_suspected_broadcast_says_possibly():
    code = """
    def active_gates(gates, n, tile: bool):
        if tile:
            s = gates.expand(n, -1)
        else:
            s = gates
        return (s != 0).sum()
    """
    assert _messages(code) == [
        (
            "SL101 `s != 0` materializes the possibly broadcast `s`, then `.sum()` reduces it: "
            "narrow it before the op and rescale"
        )
    ]


def test_an_expand_in_another_function_is_placed_by_its_line():
    from stridelint.findings import Evidence, Position

    passed = Evidence("`caller` passes a broadcast tensor `m` here", Position(9, 5))
    made = Evidence("`m[:, None].expand(-1, n)` makes a stride-0 view", Position(8, 9))
    assert wording.expand_site(Broadcast(State.DEFINITE, (passed, made))) == " (line 8)"
    # made here: the fix and the reader see it in the function itself
    assert wording.expand_site(Broadcast(State.DEFINITE, (made,), local=True)) == ""
    # a docstring's word, no expand anywhere in the code
    documented = Evidence("the docstring says `m` may be broadcast", Position(2, 5))
    assert wording.expand_site(Broadcast(State.POSSIBLE, (documented,))) == ""


# ---- code shown on one line ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "shown"),
    [("m.view(b, 1, s)\n        .expand(-1, h, -1)", "m.view(b, 1, s).expand(-1, h, -1)"),
     ("x.reshape(\n    batch, heads,\n    length,\n)", "x.reshape(batch, heads, length,)"),
     ("torch.cat([\n    a,\n    b,\n])", "torch.cat([a, b,])"),
     ("a  *\n    b", "a * b"),
     ("x *\n    .5", "x * .5")],
)  # fmt: skip
def test_code_over_several_lines_is_shown_as_written_on_one(code, shown):
    """No space where a line broke inside brackets or before a method's dot."""
    from stridelint.analysis.one_line import one_line

    assert one_line(code) == shown


def test_a_method_chain_over_lines_is_named_without_a_break_in_a_finding():
    code = textwrap.dedent(
        """\
        def f(mask, bsz, heads, length, queries):
            return (
                mask.view(bsz, 1, 1, length)
                .expand(-1, heads, queries, -1)
            ).float()
        """
    )
    source = decode(code.encode())
    config = Config(root=Path.cwd(), source=None, scope="all")
    (finding,) = lint_text(source, config, None).findings
    assert "length).expand(" in finding.message and "length) .expand" not in finding.message
