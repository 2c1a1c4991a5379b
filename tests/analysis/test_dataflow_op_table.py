"""What the dataflow makes of the op-table entries real code uses: `torch.nn.functional`
elementwise ops in every import form, `broadcast_all`, `type_as`, boolean-mask indexing,
and casts to the dtype a tensor already has."""

from __future__ import annotations

import textwrap

import pytest

from stridelint.analysis.values import Broadcast, Dense, Scalar
from tests.analysis.parsed import facts_of, flow_of


def flow(body: str, header: str = "import torch\n"):
    code = header + "def f(x, n, w, mask):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return flow_of(facts_of(code), "f")


def sink_kinds(body: str, header: str = "import torch\n") -> list[str]:
    return sorted(sink.kind for sink in flow(body, header).sinks.values())


@pytest.mark.parametrize(
    ("header", "call"),
    [
        ("import torch.nn.functional as F\n", "F.softplus(e)"),
        ("from torch.nn import functional as F\n", "F.silu(e)"),
        ("import torch\n", "torch.nn.functional.gelu(e)"),
        ("from torch.nn.functional import leaky_relu\n", "leaky_relu(e, 0.1)"),
        ("import torch.nn.functional as F\n", "F.hardtanh(e)"),
        ("import torch.nn.functional as F\n", "F.logsigmoid(e)"),
    ],
)
def test_a_functional_elementwise_op_materializes_its_broadcast_input(header, call):
    assert sink_kinds(f"e = x.expand(n, 64)\ny = {call}\n", header) == ["elementwise"]


@pytest.mark.parametrize("call", ["F.dropout(e, 0.1)", "F.softmax(e, -1)", "F.rrelu(e)"])
def test_random_or_non_elementwise_functional_ops_are_not_in_the_table(call):
    """Dropout and rrelu draw a value per element (a hoist before the expand would draw one
    per row); softmax reads a whole dim. None is an elementwise sink."""
    body = f"e = x.expand(n, 64)\ny = {call}\n"
    assert sink_kinds(body, "import torch.nn.functional as F\n") == []


def test_broadcast_all_binds_every_result_to_a_broadcast_named_after_it():
    header = "from torch.distributions.utils import broadcast_all\n"
    result = flow("a, b = broadcast_all(x, w)\n", header)
    for name in ("a", "b"):
        value = result.env[name]
        assert isinstance(value, Broadcast)
        assert "broadcast_all" in value.evidence[0].message


def test_type_as_to_the_dtype_the_tensor_has_is_no_copy():
    body = "h = x.half()\ne = h.expand(n, 64)\no = w.half()\ny = e.type_as(o)\n"
    result = flow(body)
    assert result.sinks == {}
    assert isinstance(result.env["y"], Broadcast)


def test_type_as_to_another_dtype_is_a_cast():
    body = "h = x.half()\ne = h.expand(n, 64)\no = w.float()\ny = e.type_as(o)\n"
    assert sink_kinds(body) == ["cast"]


@pytest.mark.parametrize(
    "cast", ["e.float()", "e.to(torch.float32)", "e.type(torch.float32)", "e.to(dtype=torch.float)"]
)
def test_a_cast_to_the_dtype_it_already_has_stays_the_broadcast(cast):
    result = flow(f"e = x.float().expand(n, 64)\ny = {cast}\n")
    assert result.sinks == {} and isinstance(result.env["y"], Broadcast)


def test_a_dtype_known_on_one_branch_only_leaves_the_cast_a_copy():
    body = "h = x\nif n:\n    h = x.float()\ne = h.expand(n, 64)\ny = e.float()\n"
    assert sink_kinds(body) == ["cast"]


def test_a_dtype_from_another_function_is_unknown():
    code = (
        "import torch\ndef g(x):\n    return x.float()\n"
        "def f(x, n):\n    e = g(x).expand(n, 64)\n    y = e.float()\n"
    )
    assert sorted(s.kind for s in flow_of(facts_of(code), "f").sinks.values()) == ["cast"]


def test_boolean_mask_indexing_of_a_broadcast_gathers_only_the_selected_elements():
    body = "e = x.expand(n, 64)\nm = torch.rand(n, 64) > 0.5\ny = e[m]\nk = e[m].numel()\n"
    result = flow(body)
    assert result.sinks == {}
    assert isinstance(result.env["y"], Dense) and isinstance(result.env["k"], Scalar)


def test_an_index_of_unknown_kind_may_be_an_integer_so_stays_a_view():
    assert isinstance(flow("e = x.expand(n, 64)\ny = e[k]\n").env["y"], Broadcast)


def test_an_unknown_index_named_as_a_mask_gathers():
    """`e[mask]`: a name spelled as a mask holds a bool tensor, and indexing by one copies."""
    assert isinstance(flow("e = x.expand(n, 64)\ny = e[mask]\n").env["y"], Dense)


def test_a_gather_by_a_broadcast_mask_is_dense():
    """The broadcast is in the index, not in the result: nothing full-size is kept."""
    result = flow("m = mask.expand(n, 64)\nd = torch.ones(n, 64)\ny = d[m]\n")
    assert result.sinks == {} and isinstance(result.env["y"], Dense)


@pytest.mark.parametrize("header", ["from einops import repeat\n", "import einops\n"])
def test_einops_repeat_with_a_new_axis_on_its_own_is_a_broadcast(header):
    call = "repeat" if header.startswith("from") else "einops.repeat"
    result = flow(f"e = {call}(x, 'b d -> b r d', r=n)\ny = e.exp()\n", header)
    assert isinstance(result.env["e"], Broadcast)
    assert [s.kind for s in result.sinks.values()] == ["elementwise"]


@pytest.mark.parametrize(
    "pattern", ["'b d -> b (r d)'", "'b d -> (r b) d'", "'b d -> b d'", "f'b d -> b {n}'", "spec"]
)
def test_einops_repeat_that_merges_or_adds_nothing_or_is_not_literal_is_no_source(pattern):
    result = flow(f"spec = w\ne = repeat(x, {pattern}, r=n)\n", "from einops import repeat\n")
    assert "e" not in result.env


def test_einops_rearrange_without_merged_groups_keeps_a_broadcast():
    body = "e = x[:, None].expand(-1, n)\ny = rearrange(e, 'b r -> r b')\nz = y.exp()\n"
    result = flow(body, "from einops import rearrange\nimport torch\n")
    assert isinstance(result.env["y"], Broadcast)
    assert [s.kind for s in result.sinks.values()] == ["elementwise"]


def test_einops_rearrange_that_merges_a_broadcast_is_unknown():
    body = "e = x[:, None].expand(-1, n)\ny = rearrange(e, 'b r -> (b r)')\n"
    assert "y" not in flow(body, "from einops import rearrange\nimport torch\n").env


@pytest.mark.parametrize("other", ["w", "torch.ones(n, 64)", "w > 0"])
def test_a_derived_tensor_mixed_with_a_full_size_one_reaches_no_reduction(other):
    """`(g & ~m).sum()` with g unknown or dense: the sum cannot be narrowed, so the sink of
    `~m` keeps no reduction (it is SL201's finding, not SL101's)."""
    result = flow(f"m = x.expand(n, 64)\ng = {other}\ny = (g & ~m).sum()\n")
    (sink,) = result.sinks.values()
    assert sink.reductions == [] and result.env.get("y") is None


def test_a_derived_tensor_with_scalars_and_index_grids_still_reaches_its_reduction():
    result = flow("m = x.expand(n, 64)\ny = ((~m) * 2 + torch.arange(64)).sum()\n")
    (sink,) = result.sinks.values()
    assert len(sink.reductions) == 1


@pytest.mark.parametrize(
    ("call", "sunk"),
    [
        ("F.scaled_dot_product_attention(q, k, v, attn_mask=e)", True),
        ("F.scaled_dot_product_attention(q, k, v, e)", True),
        ("F.scaled_dot_product_attention(q, k, v, None, 0.0, attn_mask=e)", True),
        ("F.scaled_dot_product_attention(q, k, e)", False),  # the values, not the mask
        ("F.scaled_dot_product_attention(*qkv, e)", False),  # where `e` lands is unknown
        ("F.scaled_dot_product_attention(q, k, v, attn_mask=e.float())", False),  # a float bias
    ],
)
def test_attention_makes_a_float_bias_of_a_broadcast_bool_mask(call, sunk):
    header = "import torch.nn.functional as F\n"
    found = flow(f"e = (x > 0)[:, None, None, :].expand(-1, n, n, -1)\ny = {call}\n", header)
    consumers = [s.consumer for s in found.sinks.values() if s.consumer is not None]
    assert consumers == (["torch.nn.functional.scaled_dot_product_attention"] if sunk else [])


def test_a_mask_of_unknown_dtype_is_no_sink_inside_attention():
    header = "import torch.nn.functional as F\n"
    found = flow("e = mask[:, None].expand(-1, n, -1)\ny = F.scaled_dot_product_attention(x, x, x, e)\n", header)
    assert not found.sinks
