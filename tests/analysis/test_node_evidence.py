"""Evidence read from the tree when asked: the same text, position and equality as eager
evidence, read no sooner than needed."""

from __future__ import annotations

import copy
import pickle

import libcst as cst

from stridelint.analysis.node_evidence import NodeEvidence, read_now
from stridelint.analysis.values import Broadcast, State, join
from stridelint.findings import Evidence, Position
from tests.analysis.parsed import facts_of, flow_of, node

CODE = """\
def f(x, n):
    if n:
        y = x.expand(4, 8)
    else:
        y = x.expand(4, 8)
    return y
"""

TEMPLATE = "`{}` makes a stride-0 view"


def _unread(evidence: NodeEvidence) -> bool:
    return evidence._read is None


def test_a_broadcast_source_reads_its_evidence_as_eager_evidence_would():
    facts = facts_of(CODE)
    first, second = (node(facts, "x.expand(4, 8)", cst.Call, nth) for nth in (0, 1))
    value = flow_of(facts, "f").env["y"]
    assert isinstance(value, Broadcast)
    assert value.evidence == (
        Evidence("`x.expand(4, 8)` makes a stride-0 view", facts.position(first)),
        Evidence("`x.expand(4, 8)` makes a stride-0 view", facts.position(second)),
    )
    assert [e.position for e in value.evidence] == [Position(3, 13), Position(5, 13)]


def test_the_same_node_is_equal_without_reading_the_tree():
    facts = facts_of(CODE)
    call = node(facts, "x.expand(4, 8)", cst.Call)
    one, two = NodeEvidence(facts, call, TEMPLATE), NodeEvidence(facts, call, TEMPLATE)
    value = Broadcast(State.DEFINITE, (one,))
    assert join(value, Broadcast(State.DEFINITE, (two,))) == value
    assert _unread(one) and _unread(two)


def test_other_nodes_compare_by_text_and_position():
    facts = facts_of(CODE)
    first, second = (node(facts, "x.expand(4, 8)", cst.Call, nth) for nth in (0, 1))
    one, two = NodeEvidence(facts, first, TEMPLATE), NodeEvidence(facts, second, TEMPLATE)
    assert one != two
    eager = Evidence("`x.expand(4, 8)` makes a stride-0 view", Position(3, 13))
    assert one == eager and eager == one and hash(one) == hash(eager)
    assert two != eager


def test_an_expand_of_an_expand_with_a_long_snippet_equals_its_operand_by_value():
    """Both start at the same place and a snippet is cut at 48 characters: eager evidence
    of the two was equal, so the lazy one must be too."""
    inner_code = "x.expand(batch_size, num_heads, sequence_length, head_dim)"
    facts = facts_of(f"def f(x):\n    y = {inner_code}.expand(2)\n")
    outer = node(facts, f"{inner_code}.expand(2)", cst.Call)
    inner = node(facts, inner_code, cst.Call)
    assert NodeEvidence(facts, outer, TEMPLATE) == NodeEvidence(facts, inner, TEMPLATE)


def test_pickled_copied_or_read_now_it_is_plain_evidence():
    facts = facts_of(CODE)
    lazy = NodeEvidence(facts, node(facts, "x.expand(4, 8)", cst.Call), TEMPLATE)
    eager = Evidence("`x.expand(4, 8)` makes a stride-0 view", Position(3, 13))
    for plain in (pickle.loads(pickle.dumps(lazy)), copy.deepcopy(lazy), read_now((lazy,))[0]):
        assert type(plain) is Evidence and plain == eager


def test_parameter_evidence_reads_no_position_until_shown():
    facts = facts_of(
        "def f(mask, s):\n"
        '    """mask: may be broadcast over rows."""\n'
        "    assert s.stride(0) == 0\n"
        "    return mask\n"
    )
    found = facts.parameter_evidence(facts.module.body[0])
    assert set(found) == {"mask", "s"}
    assert all(_unread(e) for e in found.values()) and "_positions" not in facts.__dict__
    docstring = facts.module.body[0].body.body[0]
    assert found["mask"] == Evidence(
        "the docstring says `mask` may be broadcast", facts.position(docstring)
    )
    assert found["s"].message == "the code checks whether a stride of `s` is 0"
