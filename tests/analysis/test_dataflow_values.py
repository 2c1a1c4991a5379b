"""Values the dataflow gives to broadcast sources and views."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from stridelint.analysis.module import ModuleFacts
from stridelint.analysis.values import Broadcast, Dense, State
from stridelint.source import decode
from tests.analysis.parsed import expand_value, facts_of, flow_of


def value_of(body: str, name: str = "y"):
    code = "def f(x, n):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    text = decode(code.encode())
    facts = ModuleFacts(cst.parse_module(text.text), text)
    (flow,) = facts.flows_named("f")
    return flow.env.get(name)


@pytest.mark.parametrize("call", ["x.expand(1, -1)", "x.expand((1, -1))", "x.expand(-1)"])
def test_an_expand_that_grows_no_dim_makes_no_broadcast(call):
    assert value_of(f"y = {call}\n") is None


@pytest.mark.parametrize("call", ["x.expand(4, -1)", "x.expand(n, -1)", "x.expand(*x.shape)"])
def test_an_expand_that_may_grow_a_dim_is_a_definite_broadcast(call):
    value = value_of(f"y = {call}\n")
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE


def test_a_size_one_expand_keeps_what_the_input_already_was():
    value = value_of("z = x.expand(4, 8)\ny = z.expand(1, -1, -1)\n")
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE


def test_broadcast_on_one_path_only_is_possible_after_the_join():
    value = value_of("y = x\nif n:\n    y = x.expand(4, 8)\n")
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE


@pytest.mark.parametrize(
    "code",
    ["y = None\nif n:\n    y = x.expand(4, 8)\n",
     "if n:\n    y = x.expand(4, 8)\nelse:\n    y = None\n"],
)
def test_broadcast_or_none_is_a_definite_broadcast_after_the_join(code):
    """Where `y` is a tensor at all, it is the broadcast: an op on `None` raises."""
    value = value_of(code)
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE


def test_type_as_is_a_cast_of_its_receiver():
    code = "def f(x, n):\n    m = x.expand(4, 8)\n    y = m.type_as(n)\n"
    text = decode(code.encode())
    facts = ModuleFacts(cst.parse_module(text.text), text)
    (flow,) = facts.flows_named("f")
    (sink,) = flow.sinks.values()
    assert sink.kind == "cast"


@pytest.mark.parametrize(
    "call", ["x.expand(4)", "x.expand(n.shape[0])", "x.expand(n.size(0))", "x.expand(len(n))",
             "torch.broadcast_to(x, (n.shape[0],))", "x.expand(n.shape[0] * 2)",
             "x.expand(1, n.shape[0])", "x.expand(n.size(0), 1)",
             "x.expand(max(n.shape[0], x.shape[0]))"],
)
def test_an_expand_to_one_dim_is_small(call):
    value = value_of(f"import torch\ny = {call}\n".replace("\n", "\n", 1))
    assert isinstance(value, Broadcast) and value.small


@pytest.mark.parametrize(
    "call", ["x.expand(4, 8)", "x.expand(n.shape)", "x.expand(n)", "x.expand_as(n)",
             "x.expand(*n.shape)", "x.expand(n.shape[1:])", "x.expand(4).expand(2, 4)",
             "x.expand(1, n.shape[0], 2)", "x.expand(max(n.shape))", "x.expand(1, n)"],
)
def test_an_expand_that_may_have_several_dims_is_not_small(call):
    value = value_of(f"y = {call}\n")
    assert isinstance(value, Broadcast) and not value.small


@pytest.mark.parametrize(
    ("call", "small"),
    [('repeat(x, "... n -> ... (n r)", r=2)', True), ('repeat(x, "n -> n r", r=2)', True),
     ('repeat(self.D, "h -> (h p)", p=self.headdim)', True),
     ('repeat(x, "n -> n r", r=8)', False), ('repeat(x, "h -> (h p)", p=self.headdim)', False),
     ('repeat(self.D, "h -> (h p)", p=seq_len)', False), ('repeat(x, "n -> n r", r=k)', False),
     ('repeat(x, "b j -> (b h) () j", h=k)', True), ('repeat(x, "b j -> (b h) 1 j", h=k)', True),
     ('repeat(x, "b j -> (b h) j", h=k)', False)],
)  # fmt: skip
def test_an_einops_repeat_a_few_times_per_head_or_to_broadcast_is_small(call, small):
    facts = facts_of(f"from einops import repeat\ndef f(self, x, k, seq_len):\n    y = {call}\n")
    flow = flow_of(facts, "f")
    # a merged output is a copy: its broadcast is the layout op's (SL301/SL302)
    value = flow.env.get("y") or next(op.value for op in flow.layout_ops.values())
    assert isinstance(value, Broadcast) and value.small is small


@pytest.mark.parametrize(
    ("body", "grid"),
    [("i = torch.arange(n) // x.block\nd = i[None, :] - i[:, None]\ny = d.expand(b, h, n, n)\n", False),
     ("i = torch.arange(n)\nr = i.unsqueeze(1)\nc = i.unsqueeze(0)\ny = (c - r).expand(b, -1, -1)\n", False),
     ("d = torch.arange(n)[:, None] - torch.arange(n)[None, :]\ny = d.expand(b, -1, -1)\n", False),
     # two different vectors: a coordinate grid
     ("d = torch.arange(n)[:, None] - torch.arange(m)[None, :]\ny = d.expand(b, -1, -1)\n", True),
     # one vector, the same dim inserted: no table of pairs
     ("i = torch.arange(n)\nd = i[None, :] - i[None, :]\ny = d.expand(b, -1)\n", True)],
)  # fmt: skip
def test_a_vector_paired_with_itself_is_a_table_not_a_grid(body, grid):
    """Every pair of one vector (relative positions, block distances) is n x n, attention
    shaped: expanded over batch and heads it is no position grid."""
    value = value_of("import torch\n" + body)
    assert isinstance(value, Broadcast) and value.grid is grid


@pytest.mark.parametrize(
    ("body", "small"),
    [("h = x.detach().cpu().sigmoid()\ny = h[:, None].expand(-1, n, -1)\n", True),
     ('h = x.to("cpu")\ng = h * 2\ny = g[:, None].expand(-1, n, -1)\n', True),
     ("y = x.cpu()[:, None].expand(-1, n, -1)\n", True),
     ("h = x.detach().cuda()\ny = h[:, None].expand(-1, n, -1)\n", False),
     ("h = x.to(n)\ny = h[:, None].expand(-1, n, -1)\n", False)],
)  # fmt: skip
def test_an_expand_of_a_tensor_moved_to_the_cpu_is_host_side_and_small(body, small):
    value = value_of(body)
    assert isinstance(value, Broadcast) and value.small is small


def test_a_cast_to_the_dtype_it_has_is_no_sink():
    code = "def f(a, n):\n    m = a.float().expand(n, 4)\n    y = m.to(torch.float32)\n    z = m.half()\n"
    text = decode(("import torch\n" + code).encode())
    facts = ModuleFacts(cst.parse_module(text.text), text)
    (flow,) = facts.flows_named("f")
    assert isinstance(flow.env["y"], Broadcast)  # the same tensor, still broadcast
    assert [facts.text_of(s.node) for s in flow.sinks.values()] == ["m.half()"]


@pytest.mark.parametrize(
    "body",
    ["b = n.shape[0]\ny = x.expand(b)\n", "B, T = n.shape\ny = x.expand(B)\n",
     "y = x.expand(n.shape[0] * n.shape[1])\n", "b = len(n)\ny = x.expand(b * 2)\n"],
)
def test_a_name_that_holds_one_number_makes_a_one_dim_expand(body):
    value = value_of(body)
    assert isinstance(value, Broadcast) and value.small


@pytest.mark.parametrize(
    "body",
    ["s = n.shape\ny = x.expand(s)\n", "b = n.shape[0]\nb = n.shape\ny = x.expand(b)\n",
     "y = x.expand(n)\n"],
)
def test_a_name_that_may_hold_a_shape_is_not_one_number(body):
    value = value_of(body)
    assert isinstance(value, Broadcast) and not value.small


def test_an_int_annotated_parameter_is_one_number():
    from tests.analysis.parsed import node

    facts = facts_of("def f(x, batch: int):\n    return x.expand(batch)\n")
    value = flow_of(facts, "f").value_of(node(facts, "x.expand(batch)", cst.Call))
    assert isinstance(value, Broadcast) and value.small


def test_names_defined_from_other_names_do_not_recurse():
    value = value_of("b = n.shape[0]\nc = b + 1\nd = c + b\ny = x.expand(d)\n")
    assert isinstance(value, Broadcast)  # no RecursionError; `d` is not known to be a number


def test_abs_of_a_broadcast_tensor_is_elementwise_not_a_number():
    code = "def f(x, n):\n    m = x.expand(n, 4)\n    y = abs(m)\n    k = abs(n)\n"
    text = decode(code.encode())
    facts = ModuleFacts(cst.parse_module(text.text), text)
    (flow,) = facts.flows_named("f")
    assert [facts.text_of(s.node) for s in flow.sinks.values()] == ["abs(m)"]


@pytest.mark.parametrize(
    "body",
    ["y = torch.arange(n).view(-1, 1).expand(n, 4)\n",
     "i = torch.arange(n) * 16 + 8\ny = i[:, None].expand(-1, 4)\n",
     "i = torch.linspace(0, 1, n).long()\ny = i.view(1, -1).expand(4, -1)\n",
     "i = -torch.arange(n) % 7\ny = i.unsqueeze(0).expand(x.shape[0], -1)\n",
     "i = torch.arange(n).clamp(0, 3)\ny = i.expand(4, -1)\n",  # clamped positions
     "i = torch.arange(n) * x.stride\ny = i.expand(4, -1)\n",  # scaled by a setting
     "y = torch.arange(3).reshape(1, 3, 1).expand(n, -1, 4)\n",
     "i = torch.arange(n)\nif x:\n    i = torch.arange(n) + 1\ny = i.expand(4, -1)\n",
     # scaled by a name that holds one number (`merge_size` by its name, `B` by its shape)
     "m = x.merge_size\ni = torch.arange(n)[:, None] * m + torch.arange(m)\ny = i.expand(4, -1, -1)\n",
     "B = x.shape[0]\ni = torch.arange(n) * B\ny = i.expand(4, -1)\n"],
)
def test_an_expanded_position_vector_is_a_grid(body):
    value = value_of("import torch\n" + body)
    assert isinstance(value, Broadcast) and value.grid


@pytest.mark.parametrize(
    ("body", "small"),
    [("y = x[None].expand(3, -1, -1)\n", True),  # three rows of the same values
     ("y = x[:, None].expand(-1, 2, 2)\n", True),  # 2 x 2 = 4 repeats
     ("y = x[None].expand(8, -1, -1)\n", False),  # more than a few
     ("y = x[:, None, None].expand(-1, 4, 2)\n", False),  # 4 x 2 = 8
     ("y = x[None].expand(n, -1, -1)\n", False),  # a size the code does not spell
     ("y = x.expand(3, 4)\n", False)],  # the code does not say which dims grow
)  # fmt: skip
def test_a_few_literal_repeats_are_small(body, small):
    value = value_of(body)
    assert isinstance(value, Broadcast) and value.small is small


def test_literal_numbers_and_rounded_coordinates_are_positions():
    value = value_of("import torch\ni = torch.tensor([n]).view(1, 1)\ny = i.expand(x, x)\n")
    assert isinstance(value, Broadcast) and value.grid
    value = value_of("import torch\ni = torch.linspace(0, 1, n).round()\ny = i[None].expand(x, -1)\n")
    assert isinstance(value, Broadcast) and value.grid
    value = value_of("import torch\ni = torch.zeros([n, n])\ny = i[None].expand(x, -1, -1)\n")
    assert isinstance(value, Broadcast) and not value.grid  # a shape, not numbers


@pytest.mark.parametrize(
    "body",
    ["i = torch.arange(n) < x\ny = i.expand(4, -1)\n",  # a mask, not positions
     "i = torch.arange(n) + x\ny = i.expand(4, -1)\n",  # `x` may be a full tensor
     "i = torch.arange(n)\nif x:\n    i = torch.ones(n)\ny = i.expand(4, -1)\n",
     "i = torch.ones(n)\ny = i.expand(4, -1)\n"],
)
def test_other_dense_tensors_expand_to_ordinary_broadcasts(body):
    value = value_of("import torch\n" + body)
    assert isinstance(value, Broadcast) and not value.grid


@pytest.mark.parametrize(
    ("body", "name", "grid"),
    [("y = x.seq_lens.view(n, 1).expand(n, 4)\n", "y", True),  # an attribute named as lengths
     ("y = (x + 1).view(n, 1).expand(n, 4)\n", "y", False),
     ("req_ids = x[:, None]\ny = req_ids.expand(-1, n)\n", "y", True),  # the receiver's name
     ("y_idx = x[:, None].expand(-1, n)\n", "y_idx", True),  # the name it is bound to
     ("y_idx = x[:, None].expand(-1, n).transpose(0, 1)\n", "y_idx", True),  # through a chain
     ("y = x[:, None].expand(-1, n)\n", "y", False),
     ("freq_grid = x.view(-1, 1, 1).expand(-1, n, n)\n", "freq_grid", False),  # any values
     ("flat_inds = x[:, None].expand(-1, n)\n", "flat_inds", True),
     # the data a tensor is made from names it (`torch.tensor(t_index)`), `torch` does not
     ("y = torch.tensor(t_index).view(-1, 1).expand(-1, n)\n", "y", True),
     ("y = torch.tensor(scales).view(-1, 1).expand(-1, n)\n", "y", False)],
)  # fmt: skip
def test_tensors_named_as_ids_or_lengths_expand_to_grids(body, name, grid):
    value = value_of(body, name)
    assert isinstance(value, Broadcast) and value.grid is grid


@pytest.mark.parametrize("name", ["batch", "bsz", "batch_size", "seq_len", "kv_length", "seqlen"])
def test_a_name_that_says_it_measures_is_one_number(name):
    from tests.analysis.parsed import node

    facts = facts_of(f"def f(x, {name}):\n    return x.expand({name})\n")
    value = flow_of(facts, "f").value_of(node(facts, f"x.expand({name})", cst.Call))
    assert isinstance(value, Broadcast) and value.small


@pytest.mark.parametrize("name", ["sizes", "shape", "dims", "lens"])
def test_other_parameter_names_may_hold_a_shape(name):
    from tests.analysis.parsed import node

    facts = facts_of(f"def f(x, {name}):\n    return x.expand({name})\n")
    value = flow_of(facts, "f").value_of(node(facts, f"x.expand({name})", cst.Call))
    assert isinstance(value, Broadcast) and not value.small


@pytest.mark.parametrize("index", ["valid", "keep", "attn_mask", "is_pad", "row_valid"])
def test_indexing_with_a_name_that_holds_a_mask_gathers_a_dense_copy(index):
    value = value_of(f"g = x.expand(n, -1)\ny = g[{index}]\n")
    assert value == Dense()


@pytest.mark.parametrize("index", ["i", "n", "row", "masks_seen"])
def test_indexing_with_other_unknown_names_may_keep_the_view(index):
    value = value_of(f"g = x.expand(n, -1)\ny = g[{index}]\n")
    assert isinstance(value, Broadcast)


@pytest.mark.parametrize("name", ["kernel_size", "image_size", "patch_size", "window_size"])
def test_sizes_that_are_often_pairs_may_hold_a_shape(name):
    from tests.analysis.parsed import node

    facts = facts_of(f"def f(x, {name}):\n    return x.expand({name})\n")
    value = flow_of(facts, "f").value_of(node(facts, f"x.expand({name})", cst.Call))
    assert isinstance(value, Broadcast) and not value.small


@pytest.mark.parametrize(
    "expand",
    ["b.expand(batch_size, num_groups, num_heads // num_groups, state_size)",
     "b.expand(bsz, self.num_key_value_heads, n_rep, self.head_dim)",
     "b.expand(batch, 2, n_heads, d_state)"],
)  # fmt: skip
def test_an_expand_over_per_step_dims_only_is_small(expand):
    value = value_of(f"b = x[:, :, None]\ny = {expand}\n")
    assert isinstance(value, Broadcast) and value.small


@pytest.mark.parametrize(
    "expand",
    ["b.expand(batch_size, num_heads, seq_len, head_dim)",  # a sequence
     "b.expand(batch_size, num_heads, -1, head_dim)",  # a kept dim of unknown size
     "b.expand(batch_size, num_heads, x.shape[2], head_dim)",  # a size read from a tensor
     "b.expand(batch_size, num_heads, hidden_size)"],  # features
)  # fmt: skip
def test_an_expand_with_another_dim_is_not_small(expand):
    value = value_of(f"b = x[:, :, None]\ny = {expand}\n")
    assert isinstance(value, Broadcast) and not value.small


@pytest.mark.parametrize(
    ("receiver", "small"),
    [("timestep[:, None]", True), ("timesteps.unsqueeze(-1)", True), ("audio_timesteps[:, None]", True),
     ("self.sigmas[:, None]", True), ("timestep_proj[:, None]", False), ("temb[:, None]", False),
     ("t[:, None]", False)],
)  # fmt: skip
def test_timesteps_and_noise_levels_copied_per_token_are_small(receiver, small):
    """One number per sample or frame: a copy per token is scalars, not activations; their
    embeddings are not matched."""
    code = f"def f(self, timestep, timesteps, audio_timesteps, timestep_proj, temb, t, seq_len):\n" \
           f"    return {receiver}.expand(-1, seq_len)\n"
    value = expand_value(code)
    assert isinstance(value, Broadcast) and value.small is small


@pytest.mark.parametrize(
    ("receiver", "small"),
    [("self.dt_bias[:, None]", True), ("self.A[:, None, None]", True),
     ("self.D.unsqueeze(-1)", True), ("x[:, None]", False), ("other.dt_bias[:, None]", False)],
)  # fmt: skip
def test_one_kept_dim_of_a_module_tensor_grown_by_per_step_dims_is_small(receiver, small):
    sizes = "-1, self.head_dim" if receiver.count("None") < 2 else "-1, self.head_dim, state_size"
    code = f"def f(self, x, other, state_size):\n    return {receiver}.expand({sizes})\n"
    value = expand_value(code)
    assert isinstance(value, Broadcast) and value.small is small


def test_two_kept_dims_of_a_module_tensor_are_not_small():
    code = "def f(self, batch_size):\n    return self.pos_embed.expand(batch_size, -1, -1)\n"
    value = expand_value(code)
    assert isinstance(value, Broadcast) and not value.small


def test_a_second_test_of_a_flag_parameter_takes_the_branch_the_first_took():
    body = "y = x.expand(4, 8)\nif flag:\n    y = y.clone()\nif flag:\n    return y\nreturn None\n"
    assert not isinstance(_value_after_first_return(body), Broadcast)  # the clone's copy


@pytest.mark.parametrize(
    "test, broadcast",
    [("flag", False), ("not flag", True), ("other", None), ("flag and other", None)],
)
def test_only_a_test_of_the_same_flag_refines_what_its_branch_made(test, broadcast):
    body = f"y = x.expand(4, 8)\nif flag:\n    y = y.clone()\nif {test}:\n    return y\nreturn None\n"
    value = _value_after_first_return(body)
    if broadcast is None:
        assert isinstance(value, Broadcast) and value.state is State.POSSIBLE
    elif broadcast:
        assert isinstance(value, Broadcast) and value.state is State.DEFINITE
    else:
        assert not isinstance(value, Broadcast)


@pytest.mark.parametrize(
    "between",
    [
        "flag = not flag\n",
        "y = x.expand(2, 8)\n",
        "for flag in n:\n    pass\n",
        "import flag\n",
        "if n: from m import flag\n",
        "match n:\n    case flag:\n        pass\n",
        "def g():\n    nonlocal flag\n    flag = 1\n",
    ],
)
def test_a_rebound_flag_or_name_forgets_the_branch(between):
    body = f"y = x.expand(4, 8)\nif flag:\n    y = y.clone()\n{between}if flag:\n    return y\nreturn None\n"
    assert isinstance(_value_after_first_return(body), Broadcast)


def test_a_nested_scope_binding_its_own_flag_keeps_the_branch():
    between = "def g():\n    flag = 1\n"
    body = f"y = x.expand(4, 8)\nif flag:\n    y = y.clone()\n{between}if flag:\n    return y\nreturn None\n"
    assert not isinstance(_value_after_first_return(body), Broadcast)


def _value_after_first_return(body: str):
    code = "def f(x, n, flag, other):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return flow_of(facts_of(code), "f").returns[0][1]


# ---- outputs of one broadcast_tensors call (values.Group) ----------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "a, b = torch.broadcast_tensors(x, n)\ny = a * b\n",
        "a, b = torch.broadcast_tensors(x, n)\ny = a[..., 0] * b[..., 3]\n",
        "a, b = broadcast_all(x, n)\ny = (a + b) - a\n",
        "a, b, c = torch.broadcast_tensors(x, n, x)\ny = torch.lerp(a, b, c)\n",
    ],
)
def test_an_op_over_every_output_lined_up_alike_is_dense(body):
    prelude = "import torch\nfrom torch.distributions.utils import broadcast_all\n"
    code = prelude + "def f(x, n):\n" + textwrap.indent(body, "    ")
    facts = facts_of(code)
    assert isinstance(flow_of(facts, "f").env.get("y"), Dense)


@pytest.mark.parametrize(
    "body",
    [
        "a, b, c = torch.broadcast_tensors(x, n, x)\ny = a * b\n",  # c may grow other dims
        "a, b = torch.broadcast_tensors(x, n)\ny = a[0] * b[:, 0]\n",  # not lined up
        "a, b = torch.broadcast_tensors(x, n)\ny = a[:1] * b[1:]\n",  # other ranges
        "a, b = torch.broadcast_tensors(x, n)\ny = a.transpose(0, 1) * b\n",  # a view
        "a, b = torch.broadcast_tensors(x, n)\ny = a * a\n",
        "a, b = torch.broadcast_tensors(x.expand(4, 8), n)\ny = a * b\n",  # stride 0 already
        "a, b = torch.broadcast_tensors(x, n)\nc, d = torch.broadcast_tensors(x, n)\ny = a * d\n",
    ],
)
def test_an_op_over_part_of_a_group_still_materializes_it(body):
    code = "import torch\ndef f(x, n):\n" + textwrap.indent(body, "    ")
    facts = facts_of(code)
    flow = flow_of(facts, "f")
    assert not isinstance(flow.env.get("y"), Dense)
    assert flow.sinks  # the op is reported


@pytest.mark.parametrize(
    ("call", "broadcast"),
    [("torch.as_strided(x, (n, 4), (0, 1))", True),
     ("torch.as_strided(x, size=(n, 4), stride=[0, 1])", True),
     ("torch.empty_strided((n, 4), (0, 1))", True),
     ("torch.as_strided(x, (0, 4), (4, 1))", False),  # a size of 0: an empty tensor
     ("torch.empty_strided((0, 4), (4, 1))", False),
     ("torch.as_strided(x, *sizes_and_strides)", False)],
)  # fmt: skip
def test_a_strided_call_makes_a_broadcast_when_its_strides_hold_a_literal_zero(call, broadcast):
    facts = facts_of(f"import torch\ndef f(x, n, sizes_and_strides):\n    y = {call}\n")
    assert isinstance(flow_of(facts, "f").env.get("y"), Broadcast) is broadcast


@pytest.mark.parametrize(
    ("call", "grid"),
    [("torch.broadcast_tensors(torch.arange(n), torch.arange(n)[:, None])", True),
     ("torch.meshgrid(torch.arange(n), torch.arange(x))", True),
     ("torch.broadcast_tensors(x, torch.arange(n)[:, None])", False)],  # `x` holds any values
)  # fmt: skip
def test_a_broadcast_of_index_vectors_only_is_a_grid(call, grid):
    value = value_of(f"import torch\nu, y = {call}\n")
    assert isinstance(value, Broadcast) and value.grid is grid


@pytest.mark.parametrize(
    ("body", "broadcast"),
    [("e = x.expand(n, -1)\ny = e[0]\n", False),  # one row of a row repeated
     ("e = x\nif n:\n    e = x.expand(n, -1)\nfor b in range(n):\n    y = e[b]\n", False),
     ("e = x[:, None].expand(-1, n, -1)\ny = e[0]\n", True),  # dim 1 is still stride 0
     ("e = x[:, None].expand(-1, n, -1)\ny = e[0, 1]\n", False),
     ("e = x[:, None].expand(-1, n, -1)\ny = e[0, :]\n", True),
     ("e = x.expand(n, -1).unsqueeze(0)\ny = e[0]\n", True),  # a view moved the dims
     ("e = x.expand(n, -1)\ny = e[None]\n", True),
     ("e = x.expand_as(n)\ny = e[0]\n", True),  # the code does not say which dims grow
     ("e = x.expand(n, -1)\ny = e[i]\n", True)],  # `i` may be a slice
)  # fmt: skip
def test_indexing_away_every_dim_an_expand_may_grow_leaves_no_broadcast(body, broadcast):
    value = value_of(body)
    assert isinstance(value, Broadcast) is broadcast


@pytest.mark.parametrize(
    ("receiver", "small"),
    [("self.A.unsqueeze(0).unsqueeze(-1)", True),  # the -1 on the inserted dim keeps size 1
     ("x.unsqueeze(0).unsqueeze(-1)", True),  # one vector, a copy per layer
     ("x.unsqueeze(0)", False),  # two dims of a tensor of any size kept
     ("self.A.unsqueeze(0)", False)],  # two dims of the tensor kept
)  # fmt: skip
def test_a_kept_inserted_dim_adds_no_size(receiver, small):
    code = f"def f(self, x):\n    return {receiver}.expand(self.num_layers, -1, -1)\n"
    value = expand_value(code)
    assert isinstance(value, Broadcast) and value.small is small


@pytest.mark.parametrize(
    ("sizes", "small"),
    [("num_hidden_layers, -1, -1, -1, -1", True),  # per-layer copies of a head mask
     ("batch_size * num_heads, -1, -1, -1, -1", True),  # counts only
     ("seq_len, -1, -1, -1, -1", False),  # a sequence of copies: no count
     ("self.head_dim, -1, -1, -1, -1", False)],  # a vector per head_dim: an activation's size
)  # fmt: skip
def test_a_vector_copied_by_counts_alone_is_small(sizes, small):
    code = (
        "def f(self, mask, num_hidden_layers, batch_size, num_heads, seq_len):\n"
        f"    return mask.unsqueeze(0).unsqueeze(0).unsqueeze(-1).unsqueeze(-1).expand({sizes})\n"
    )
    value = expand_value(code)
    assert isinstance(value, Broadcast) and value.small is small


@pytest.mark.parametrize(
    ("expand", "small"),
    [("m.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)", True),  # a key mask per head
     ("m.view(bsz, 1, src_len).expand(-1, num_heads, -1)", True),
     ("m.view(bsz, 1, 1, src_len).expand(-1, num_heads, tgt_len, -1)", False),  # and per query
     ("m.view(bsz, 1, src_len, dim).expand(-1, num_heads, -1, -1)", False),  # a matrix per row
     ("m.view(bsz, 1, 1, src_len).expand(-1, tgt_len, -1, -1)", False),  # grown by a length
     ("m.view(tgt_len, 1, 1, src_len).expand(-1, num_heads, -1, -1)", False)],  # a matrix
)  # fmt: skip
def test_a_vector_per_batch_row_copied_per_head_is_small(expand, small):
    """The `-1` of a batch dim a view spells keeps a count, like a size the expand spells."""
    code = f"def f(m, bsz, src_len, tgt_len, num_heads, dim):\n    return {expand}\n"
    value = expand_value(code)
    assert isinstance(value, Broadcast) and value.small is small


@pytest.mark.parametrize(
    ("expand", "small"),
    [("m.reshape(b, f, 1, 4, 4).expand(b, f, n, 4, 4)", True),  # a camera matrix a position
     ("m.reshape(b, 1, 3, 3).expand(b, n, 3, 3)", True),  # intrinsics a position
     ("m.reshape(b, 1, 4).expand(b, n, 4)", False),  # a box a position: the data itself
     ("m.reshape(b, 1, 8, 8).expand(b, n, 8, 8)", False),  # 64 numbers a position
     ("m.reshape(b, 1, d).expand(b, n, d)", False),  # a size the code does not spell
     ("m.reshape(b, f, 1, 1).expand(b, f, n, 4)", False)],  # the last dim grows too
)  # fmt: skip
def test_small_matrices_repeated_are_small(expand, small):
    code = f"def f(m, b, f, n, d):\n    return {expand}\n"
    value = expand_value(code)
    assert isinstance(value, Broadcast) and value.small is small


def test_a_name_given_to_a_call_the_expand_is_an_argument_of_says_nothing_of_it():
    """`positions = rotate(q.expand(...), positions)`: the name is the call's result, the
    expand a rotation it takes, no position grid."""
    from tests.analysis.parsed import node

    facts = facts_of("def f(q, positions, n):\n    positions = rotate(q[:, None].expand(-1, n), positions)\n")
    value = flow_of(facts, "f").value_of(node(facts, "q[:, None].expand(-1, n)", cst.Call))
    assert isinstance(value, Broadcast) and not value.grid


# ---- concatenations of broadcasts (Dense.concatenated) --------------------------------------


@pytest.mark.parametrize(
    ("body", "concatenated"),
    [("y = torch.cat([x[:, None].expand(-1, n), x[None, :].expand(n, -1)], dim=-1)", True),
     ("y = torch.cat([x[:, None].expand(-1, n), x[None, :].expand(n, -1)]).reshape(-1)", True),
     ("y = torch.cat([x[:, None].expand(-1, n), x], dim=-1)", False),  # a dense part
     ("y = torch.cat([x[:, None].expand(-1, n)], dim=-1)", False),  # one part: a copy of it
     ("y = torch.cat([*parts], dim=-1)", False),
     ("if n:\n    y = torch.cat([x[:, None].expand(-1, n), x[None, :].expand(n, -1)])\n"
      "else:\n    y = torch.cat([x[None, :].expand(n, -1), x[:, None].expand(-1, n)])", True),
     ("if n:\n    y = torch.cat([x[:, None].expand(-1, n), x[None, :].expand(n, -1)])\n"
      "else:\n    y = torch.cat([x, x])", False),  # dense on one path
     ("a, b = torch.broadcast_tensors(x[:, None], x[None, :])\ny = torch.stack([a, b])", False)],
)  # fmt: skip
def test_a_concatenation_of_broadcasts_is_dense_and_remembers_its_parts(body, concatenated):
    value = value_of("import torch\nparts = [x]\n" + body)
    assert isinstance(value, Dense)
    assert (value.concatenated is not None) is concatenated


@pytest.mark.parametrize(
    ("op", "recorded"),
    [("y.to(torch.float16)", True), ("y.cos()", True), ("2 * y", True),
     ("x.sum() * y", False),  # a 0-d tensor is a tensor operand to the analysis
     ("y * other", False),  # a tensor operand of any size: the product is output-sized
     ("y.sum()", False)],
)  # fmt: skip
def test_an_op_on_a_concatenation_of_broadcasts_alone_is_recorded(op, recorded):
    code = (
        "import torch\n\ndef f(x, n, other):\n"
        "    y = torch.cat([x[:, None].expand(-1, n), x[None, :].expand(n, -1)], dim=-1)\n"
        f"    return {op}\n"
    )
    flow = flow_of(facts_of(code), "f")
    assert bool(flow.concatenated_ops) is recorded


@pytest.mark.parametrize(
    "code",
    ["if n:\n    y = x.expand(4, 8)\nz = y + 1\n",
     "if n > 0:\n    p = x.expand(4, 8)\nelse:\n    q = 1\nif n > 0:\n    y = torch.cat([p, p])\n"],
)
def test_a_name_only_one_branch_binds_keeps_that_branch_value(code):
    """Where the branch was skipped the name is unbound (reading it raises), so it holds the
    branch's value wherever it is read: a definite broadcast, or its concatenation."""
    value = value_of("import torch\n" + code, "p" if "p =" in code else "y")
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE


@pytest.mark.parametrize(
    "code",
    ["y = x\nif n:\n    y = x.expand(4, 8)\n",
     "if n:\n    y = x.expand(4, 8)\ny = y\n",
     "if n:\n    y = x.expand(4, 8)\nfor y in x:\n    pass\n"],
)
def test_a_name_bound_outside_the_branch_too_stays_possible(code):
    value = value_of(code)
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE


def test_an_expand_on_one_path_and_a_concatenation_on_the_other_repeats_on_both():
    value = value_of(
        "import torch\ny = x.expand(4, 8)\nif n:\n    y = torch.cat([x.expand(2, 8), y])\n"
    )
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE
    assert value.repeated and value.always_repeats


@pytest.mark.parametrize(
    "code",
    ["y = x\nif n:\n    y = x.expand(4, 8)\nif n:\n    y = torch.cat([x.expand(2, 8), y])\n",
     "y = torch.cat([x.expand(2, 8), x.expand(2, 8)])\nif n:\n    y = x\n"],
)
def test_a_path_with_a_dense_tensor_does_not_repeat(code):
    value = value_of("import torch\n" + code)
    assert not (isinstance(value, Broadcast) and value.repeated)


def test_a_concatenation_joined_to_itself_is_a_literal_repeat_not_a_new_one():
    """`torch.cat([f, f])` duplicates one table; a padded concatenation stays one."""
    parts = "f = torch.cat([x.expand(4, 8), n.expand(4, 8)], 1)\n"
    doubled = value_of("import torch\n" + parts + "y = torch.cat([f, f], 1)\n")
    padded = value_of("import torch\n" + parts + "y = torch.cat([f, torch.zeros(4, 2)], 1)\n")
    assert isinstance(doubled, Dense) and doubled.concatenated is None
    assert isinstance(padded, Dense) and padded.concatenated is not None


@pytest.mark.parametrize(
    ("code", "rank"),
    [("y = x.expand(n, 4, 8)\n", 3), ("y = x.expand(n, 4, 8).permute(2, 0, 1)\n", 3),
     ("y = x.expand(n, 4, 8).to('cuda')\n", 3), ("y = x.expand(n, 4, 8).unsqueeze(0)\n", None),
     ("y = x.expand(n, 4, 8)[0]\n", None), ("y = x.expand(n.shape)\n", None),
     ("y = torch.cat([x.expand(n, 4), n.expand(n, 4)], 1)\n", 2),
     ("y = x.expand(n, 4)\nif n:\n    y = x.expand(n, 4, 2)\n", None)],
)  # fmt: skip
def test_the_rank_of_an_expand_where_its_sizes_are_spelled(code, rank):
    value = value_of("import torch\n" + code)
    if isinstance(value, Dense):
        value = value.concatenated
    assert isinstance(value, Broadcast) and value.rank == rank


def _sinks_of(body: str) -> list[str]:
    code = "import torch\n\n\ndef f(x, n):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    facts = facts_of(code)
    return sorted(facts.text_of(sink.node) for sink in flow_of(facts, "f").sinks.values())


def test_a_branch_a_rank_test_rules_out_sees_no_broadcast():
    """`t` has 3 dims: `t.ndim == 3` holds, so the other branch runs only for other tensors."""
    body = """
    t = x.expand(n, 4, 8)
    if t.ndim == 3:
        a = t + 1
    else:
        b = t * 2
    if t.dim() != 3:
        c = t.float()
    if len(t.shape) == 2:
        d = t - 1
    e = t.abs()
    """
    assert _sinks_of(body) == ["t + 1", "t.abs()"]


def test_a_rank_test_on_a_tensor_of_unknown_rank_keeps_both_branches():
    body = """
    t = x.expand(*n.shape)
    if t.ndim == 3:
        a = t + 1
    else:
        b = t * 2
    """
    assert _sinks_of(body) == ["t * 2", "t + 1"]


def test_a_broadcast_joined_to_itself_is_still_a_concatenation_of_broadcasts():
    value = value_of("import torch\nf = x.expand(4, 8)\ny = torch.cat([f, f], 1)\n")
    assert isinstance(value, Dense) and value.concatenated is not None


@pytest.mark.parametrize("write", ["c[..., 0] += n", "c[0] = n", "c[:, 1:] *= 2"])
def test_an_item_write_into_a_copy_of_a_broadcast_makes_it_plain_dense(write):
    """Some positions change: the copy no longer repeats the broadcast's values."""
    value = value_of(f"c = x.expand(4, 8).clone()\n{write}\ny = c\n")
    assert isinstance(value, Dense) and value.concatenated is None
