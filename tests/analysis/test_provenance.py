"""provenance: the expand a broadcast operand comes from, and which dims it broadcasts."""

from __future__ import annotations

import libcst as cst
import pytest

from stridelint.analysis import provenance
from tests.analysis.parsed import facts_of, node, statement_of


def test_expand_parts_splits_a_method_expand_into_tensor_and_suffix():
    facts = facts_of("y = x[:, None].expand(b, n)\n")
    pre, suffix = provenance.expand_parts(facts, node(facts, "x[:, None].expand(b, n)"))
    assert (facts.text_of(pre), suffix) == ("x[:, None]", ".expand(b, n)")


def test_expand_parts_writes_torch_broadcast_to_as_an_expand():
    facts = facts_of("import torch\ny = torch.broadcast_to(x, s)\n")
    pre, suffix = provenance.expand_parts(facts, node(facts, "torch.broadcast_to(x, s)"))
    assert (facts.text_of(pre), suffix) == ("x", ".expand(s)")


def test_expand_parts_is_none_for_another_call():
    facts = facts_of("y = x.view(b, n)\n")
    assert provenance.expand_parts(facts, node(facts, "x.view(b, n)")) is None


def _source(code: str, operand: str = "e"):
    """expand_source of the load of `operand` in the last statement of f."""
    facts = facts_of(code)
    body = facts.module.body[0].body.body
    load = node(facts, operand, cst.Name, nth=-1)
    assert statement_of(facts, load) is body[-1]
    return facts, provenance.expand_source(facts, load, body[-1])


def test_expand_source_of_an_inline_expand_is_its_own_suffix():
    facts = facts_of("def f(x, n):\n    y = x.float().expand(n, -1) * 2\n")
    operand = node(facts, "x.float().expand(n, -1)", cst.Call)
    source = provenance.expand_source(facts, operand, statement_of(facts, operand))
    assert (source.pre, source.suffix, source.name) == ("x.float()", ".expand(n, -1)", None)


def test_expand_source_of_a_name_expands_as_the_name():
    _, source = _source("def f(x, n):\n    e = (x + 1).expand(n, -1)\n    y = e * 2\n")
    assert (source.pre, source.suffix, source.name) == ("(x + 1)", ".expand_as(e)", "e")


@pytest.mark.parametrize(
    "between",
    ["x = x * 2", "x.add_(1)", "x[0] = 0", "e = e * 1"],
)
def test_expand_source_refuses_when_the_tensor_before_the_expand_may_change(between):
    code = f"def f(x, n):\n    e = x.expand(n, -1)\n    {between}\n    y = e * 2\n"
    assert _source(code)[1] is None


def test_expand_source_refuses_a_name_rebound_onto_its_own_expand():
    code = "def f(m, n):\n    m = m[:, None].expand(-1, n)\n    y = m * 2\n"
    assert _source(code, "m")[1] is None


def test_expand_source_refuses_where_a_comprehension_rebinds_a_name_of_the_tensor():
    code = "def f(x, n, xs):\n    e = x.expand(n, -1)\n    ys = [e * 2 for x in xs]\n"
    assert _source(code)[1] is None


def _dims(expand: str):
    facts = facts_of(f"y = {expand}\n")
    return provenance.expanded_dims(facts, facts.module.body[0].body[0].value)


@pytest.mark.parametrize(
    ("expand", "broadcast", "kept", "unit"),
    [
        ("m[:, None].expand(b, n, s)", {1}, {0, 2}, set()),
        ("m[None, ...].expand(n, b, s)", {0}, {1, 2}, set()),
        ("m[0, :, None].expand(s, n)", {1}, {0}, set()),
        ("m.unsqueeze(-1).expand(b, s, n)", {2}, set(), set()),
        ("m[:, None].expand(b, 1, s)", set(), {0, 2}, {1}),
        ("m.expand(n, -1)", {0}, {1}, set()),
    ],
)
def test_expanded_dims_reads_inserted_kept_and_unit_dims(expand, broadcast, kept, unit):
    dims = _dims(expand)
    assert (set(dims.broadcast), set(dims.kept), set(dims.unit)) == (broadcast, kept, unit)


def test_expanded_dims_gives_up_lining_up_after_a_partial_slice():
    dims = _dims("m[1:, None].expand(b, n, s)")
    assert dims.broadcast == frozenset() and dims.candidates == {0, 1, 2}


@pytest.mark.parametrize("expand", ["m.expand(shape)", "m.expand(*sizes)", "m.view(b, n)"])
def test_expanded_dims_is_none_when_the_sizes_are_not_in_the_code(expand):
    assert _dims(expand) is None


def test_expanded_dims_reads_no_code_until_its_sizes_are_asked():
    """The dataflow asks every expand's dims; the first code read of a module costs a code
    generation (positions.py), so the sizes' text waits for a rule that shows it."""
    facts = facts_of("y = m[:, None].expand(b, n, s)\n")
    dims = provenance.expanded_dims(facts, facts.module.body[0].body[0].value)
    assert dims.candidates == {1} and "_positions" not in facts.__dict__
    assert dims.sizes == ("b", "n", "s")


def test_a_decimal_size_is_what_reading_its_code_says():
    dims = _dims("m.expand((3), 0x3, 3_0, 00, n, x.shape[0], 2 * 2, -1, ( 4 ))")
    assert [dims.decimal(d) for d in range(len(dims.sizes))] == [
        int(text) if text.isdigit() else None for text in dims.sizes
    ]
    assert [dims.decimal(d) for d in range(len(dims.sizes))] == [3, None, None, 0] + [None] * 4 + [4]


def test_candidates_are_the_dims_neither_kept_nor_of_size_one():
    assert _dims("m.expand(b, 1, n, -1)").candidates == {0, 2}


def test_dims_of_a_name_reads_the_expand_it_was_bound_to():
    facts = facts_of("def f(m, b, n):\n    e = m[:, None].expand(b, n)\n    e[0] = 1\n")
    load = node(facts, "e", cst.Name, nth=-1)
    dims = provenance.dims_of(facts, load, statement_of(facts, load))
    assert dims.sizes == ("b", "n") and dims.broadcast == {1}


def test_operands_broadcast_along_different_dims():
    from stridelint.analysis.provenance import broadcast_along_different_dims
    from tests.analysis.parsed import flow_of

    facts = facts_of(
        "def f(a, b, n, s):\n"
        "    q = a.unsqueeze(-1).expand(n, s, 4)\n"
        "    k = b.unsqueeze(1).expand(n, 4, s)\n"
        "    same = a.unsqueeze(0).expand(4, s)\n"
        "    other = b.unsqueeze(0).expand(4, s)\n"
        "    return q == k, same + other\n"
    )
    outer = node(facts, "q == k", cst.Comparison)
    operands = [(outer.left, None), (outer.comparisons[0].comparator, None)]
    assert broadcast_along_different_dims(facts, operands, statement_of(facts, outer))
    # the outer op materializes nothing to hoist: the dataflow keeps only the other's sink
    (shared,) = flow_of(facts, "f").sinks.values()
    assert not broadcast_along_different_dims(facts, shared.operands, shared.statement)


@pytest.mark.parametrize(
    ("view", "different"),
    [("a.view(-1, 1)", True), ("a.reshape((-1, 1))", True), ("a.view(1, -1)", False),
     ("a.view(n, 1)", True), ("a.view(n, m)", False)],
)  # fmt: skip
def test_a_literal_view_says_which_dim_it_inserts(view, different):
    facts = facts_of(
        f"def f(a, b, n, m):\n    y = {view}.expand(n, m) + b.view(1, -1).expand(n, m)\n"
    )
    op = next(n for n in facts.parents if isinstance(n, cst.BinaryOperation))
    operands = [(op.left, None), (op.right, None)]
    assert provenance.broadcast_along_different_dims(facts, operands, statement_of(facts, op)) is different


@pytest.mark.parametrize(
    ("left", "right", "different"),
    [("a.unsqueeze(1).expand_as(t)", "b.unsqueeze(0).expand_as(t)", True),
     ("a[:, None].expand_as(t)", "b[None].expand_as(t)", True),
     ("a[0, :, None].expand_as(t)", "b[None, :].expand_as(t)", True),
     ("a.unsqueeze(0).expand_as(t)", "b[None].expand_as(t)", False),  # the same dim
     ("a.unsqueeze(1).expand_as(t)", "b.unsqueeze(0).expand_as(u)", False),  # other targets
     ("a.unsqueeze(-1).expand_as(t)", "b.unsqueeze(0).expand_as(t)", False),  # from the back
     ("a[..., None].expand_as(t)", "b[None].expand_as(t)", False),
     ("a.unsqueeze(1).expand_as(t)", "b.expand_as(t)", False)],
)  # fmt: skip
def test_expands_as_one_tensor_read_their_inserted_dims_from_the_front(left, right, different):
    facts = facts_of(f"def f(a, b, t, u):\n    x = {left}\n    y = x + {right}\n")
    op = node(facts, f"x + {right}", cst.BinaryOperation)
    operands = [(op.left, None), (op.right, None)]
    statement = statement_of(facts, op)
    assert provenance.broadcast_along_different_dims(facts, operands, statement) is different


@pytest.mark.parametrize(
    ("left", "right", "different"),
    [("m.expand(b, -1, -1)", "p.unsqueeze(1).expand_as(x)", True),
     ("m.expand(b, -1, -1)", "p.unsqueeze(0).expand_as(x)", False),  # both may grow dim 0
     ("m.expand(b, n, -1)", "p.unsqueeze(1).expand_as(x)", False),  # dim 1 may be grown twice
     ("m.expand(b, -1, -1)", "p.unsqueeze(1).expand_as(m)", False),  # another tensor's shape
     ("m.expand(b, -1, -1)", "p.expand_as(x)", False)],  # nothing inserted: any dim may grow
)  # fmt: skip
def test_an_expand_beside_an_expand_as_of_it_compares_the_dims_they_may_grow(left, right, different):
    facts = facts_of(f"def f(m, p, b, n):\n    x = {left}\n    y = x.masked_fill({right}, 1)\n")
    call = node(facts, f"x.masked_fill({right}, 1)", cst.Call)
    operands = [(call.func.value, None), (call.args[0].value, None)]
    statement = statement_of(facts, call)
    assert provenance.broadcast_along_different_dims(facts, operands, statement) is different


@pytest.mark.parametrize(
    ("right", "different"),
    [("m.transpose(1, 2)", True), ("m.transpose(-1, -2)", True), ("m.swapaxes(2, 1)", True),
     ("m.transpose(0, 2)", False), ("m", False), ("m.transpose(1, k)", False)],
)  # fmt: skip
def test_a_transposed_expand_is_broadcast_along_the_swapped_dims(right, different):
    facts = facts_of(
        f"def f(v, t, k):\n    m = v.unsqueeze(1).expand(-1, t, -1)\n    y = m & {right}\n"
    )
    op = node(facts, f"m & {right}", cst.BinaryOperation)
    operands = [(op.left, None), (op.right, None)]
    statement = statement_of(facts, op)
    assert provenance.broadcast_along_different_dims(facts, operands, statement) is different


@pytest.mark.parametrize(
    ("expand", "right", "different"),
    [("v.expand(n, n)", "m.transpose(1, 0)", True),  # a vector of unknown rank, either dim
     ("v.expand(n, n)", "m.T", False),  # not a transpose the code spells with its dims
     ("v.expand(4, n, n)", "m.transpose(1, 2)", False),  # dim 0 may be grown in both
     ("v.expand(n, n)", "w.transpose(1, 0)", False),  # another tensor's transpose
     ("v.expand(n, -1)", "m.transpose(1, 0)", True)],  # dim 0 grows, dim 1 is kept
)  # fmt: skip
def test_an_expand_beside_its_own_transpose_over_the_dims_it_may_grow_is_an_outer_op(
    expand, right, different
):
    facts = facts_of(f"def f(v, w, n):\n    m = {expand}\n    y = m + {right}\n")
    op = node(facts, f"m + {right}", cst.BinaryOperation)
    operands = [(op.left, None), (op.right, None)]
    statement = statement_of(facts, op)
    assert provenance.broadcast_along_different_dims(facts, operands, statement) is different


@pytest.mark.parametrize(
    ("between", "broadcast"),
    [("", {3}), ("k.unsqueeze_(0)\n    ", set()), ("k = torch.cat([k, k])\n    ", set())],
)
def test_an_expand_of_a_name_reads_the_view_the_name_was_bound_to(between, broadcast):
    facts = facts_of(
        "import torch\n"
        "def f(k, b, n, h, g, d):\n"
        "    k = k.view(b, n, h, 1, d)\n"
        f"    {between}e = k.expand(b, n, h, g, d)\n"
    )
    call = node(facts, "k.expand(b, n, h, g, d)", cst.Call)
    assert provenance.expanded_dims(facts, call).broadcast == broadcast


@pytest.mark.parametrize(
    ("expand", "broadcast", "unit"),
    [("m.unsqueeze(0).unsqueeze(0).unsqueeze(-1).unsqueeze(-1).expand(l, -1, -1, -1, -1)",
      {0}, {1, 3, 4}),  # a vector placed at dim 2; the kept inserted dims stay size 1
     ("m.unsqueeze(1).unsqueeze(1).expand(-1, h, w, -1)", {1, 2}, set()),
     ("m.unsqueeze(-1).unsqueeze(0).expand(b, -1, -1, k)", {0, 3}, set())],
)  # fmt: skip
def test_a_chain_of_unsqueezes_places_each_inserted_dim(expand, broadcast, unit):
    facts = facts_of(f"def f(m, l, h, w, b, k):\n    y = {expand}\n")
    dims = provenance.expanded_dims(facts, node(facts, expand, cst.Call))
    assert dims is not None and dims.broadcast == broadcast and dims.unit == unit
