"""One number copied per token, and the modules and methods run on such copies."""

from __future__ import annotations

import libcst as cst
import pytest

from stridelint.analysis import per_token, provenance
from stridelint.analysis.tree import walk
from stridelint.analysis.values import Broadcast, State, join
from tests.analysis.parsed import expand_value, facts_of, flow_of


def _size(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


@pytest.mark.parametrize(
    "size",
    ["token_h * token_w", "p.batch_size * ns.token_h * ns.token_w", "self.nar_length",
     "N_nar", "seq_len", "x.shape[1]", "n", "num_batched_tokens"],
)  # fmt: skip
def test_sizes_that_count_tokens(size):
    assert per_token.counts_tokens(_size(size))


@pytest.mark.parametrize(
    "size",
    ["latents.shape[0]", "x.size(0)", "len(prompts)", "batch_size", "bsz", "B", "2",
     "cfg_batch", "batch_size * 2", "num_heads", "self.num_kv_groups"],
)  # fmt: skip
def test_sizes_that_count_batch_rows(size):
    assert not per_token.counts_tokens(_size(size))


@pytest.mark.parametrize(
    ("expand", "copied_per_token"),
    [("t.expand(token_h * token_w)", True), ("t.expand(latents.shape[0])", False),
     ("t.expand(token_h, token_w)", False),  # no dim inserted: t may be (token_h, token_w)
     ("t[None].expand(seq_len, -1)", True),  # one row copied per token
     ("t.unsqueeze(1).expand(-1, seq_len, -1)", True),
     ("t.unsqueeze(1).expand(latents.shape[0], 4, -1)", False),  # a few literal copies
     ("x.expand(latents.shape[0], -1, -1)", False),  # a copy per batch row
     ("t.unsqueeze(-1).expand(-1, -1, seq_len)", False),  # the features themselves repeat
     ("self.probe.expand(b * t, -1, -1)", False),  # one query a frame: a copy per batch row
     ("x.unsqueeze(2).expand(-1, -1, seq_len, -1, -1)", False),  # an image layout's dim
     ("torch.tensor(0.0).expand(1, seq_len)", False),  # a placeholder of a shape
     ("t.expand(input_shape[0])", False),
     ("torch.linspace(0, 1, seq_len).view(1, -1, 1).expand(b, -1, seq_len)", False)],  # a grid
)  # fmt: skip
def test_one_number_or_row_copied_per_token(expand, copied_per_token):
    code = (
        "import torch\n\n\ndef f(self, t, x, b, latents, token_h, token_w, seq_len, input_shape):"
        f"\n    return {expand}\n"
    )
    value = expand_value(code)
    assert isinstance(value, Broadcast) and value.per_token is copied_per_token


def test_a_join_keeps_per_token_only_where_both_paths_copy_per_token():
    per_token_copy = Broadcast(State.DEFINITE, (), local=True, per_token=True)
    batch_copy = Broadcast(State.DEFINITE, (), local=True)
    assert join(per_token_copy, per_token_copy).per_token
    assert not join(per_token_copy, batch_copy).per_token
    assert join(per_token_copy, None).per_token  # the other path is no broadcast at all


def _per_token_calls(body: str) -> list[str]:
    code = "def f(self, t, model, x, n: int, kernel, grid):\n" + "".join(
        f"    {line}\n" for line in body.splitlines()
    )
    facts = facts_of(code)
    flow = flow_of(facts, "f")
    return [facts.text_of(call.call.func) for call in flow.per_token_calls.values()]


@pytest.mark.parametrize(
    "call",
    ['self.fm_modules["timestep_embedder"](t.expand(n))', "model.time_embedder(t.expand(n))",
     "self.time_embedder(t.expand(n), x)"],
)  # fmt: skip
def test_a_held_module_run_on_a_per_token_copy_is_recorded(call):
    assert _per_token_calls(f"y = {call}") == [call.split("(t.expand")[0]]


def test_the_copy_may_be_bound_to_a_name_first():
    assert _per_token_calls("te = t.expand(n)\ny = self.embed(te)") == ["self.embed"]


@pytest.mark.parametrize(
    "call",
    ["x.add(t.expand(n))",  # a tensor method: the op table's business
     "t.expand(n).float()",  # the copy is the receiver, not an argument
     "self.embed(x, t.expand(n))",  # only the first argument is what the module runs on
     "self.embed(timestep=t.expand(n))",
     "self.embed(t.expand(x.shape[0]))",  # a copy per batch row
     "kernel[grid](t.expand(n))",  # a launch reads through the strides it is given
     "torch.sigmoid(t.expand(n))"],
)  # fmt: skip
def test_other_calls_are_not_recorded(call):
    assert _per_token_calls(f"y = {call}") == []


@pytest.mark.parametrize(
    "call",
    ["blocks.append(t.expand(n))", "self.positions[:n].copy_(t.expand(n))",
     "module.extend_pe(t.expand(n))", "self.extend_pe(t.expand(n))"],
)  # fmt: skip
def test_containers_writes_and_methods_of_the_code_are_not_module_runs(call):
    """A method of the code's own classes is followed into (it may read only the size, like
    a positional table's `extend_pe`); a container keeps the tensor; `copy_` writes it."""
    code = (
        "class Table:\n    def extend_pe(self, x):\n        return x.size(1)\n\n"
        "    def f(self, t, blocks, module, n: int):\n"
        f"        return {call}\n"
    )
    facts = facts_of(code)
    (flow,) = facts.flows_named("f")
    assert flow.per_token_calls == {}


def _facts_of_body(body: str):
    """The facts of `def f(self, t, x, n: int)` with `body`'s lines, torch imported."""
    lines = "".join(f"    {line}\n" for line in body.splitlines())
    return facts_of("import torch\n\n\ndef f(self, t, x, n: int):\n" + lines)


@pytest.mark.parametrize(
    "body",
    ["y = self.mod(torch.cat([t[i : i + 1].unsqueeze(1).expand(1, n, -1) for i in x], dim=1))",
     "r = torch.cat([t[:1].unsqueeze(1).expand(1, n, -1),\n"
     "               t[1:].unsqueeze(1).expand(1, n, -1)], 1)\n"
     "y = self.mod(r.reshape(2 * n, -1))",
     "r = torch.cat([t[None].expand(n, -1) for _ in x], 0)\n"
     "r = torch.cat([r, torch.zeros(x, r.shape[1])], 0)\ny = self.mod(r)"],
)  # fmt: skip
def test_a_module_run_on_a_concatenation_of_per_token_copies_is_recorded(body):
    """One row per sample, each copied per token and joined (a packed batch, zero-padded)."""
    facts = _facts_of_body(body)
    (call,) = flow_of(facts, "f").per_token_calls.values()
    assert facts.text_of(call.call.func) == "self.mod" and call.form == per_token.CONCATENATION


@pytest.mark.parametrize(
    "body",
    ["y = self.mod(torch.cat([t[i, None].expand(x.shape[0], -1) for i in range(4)], 1))",
     "y = self.mod(torch.cat([t[None].expand(n, -1), x], 0))",
     "y = self.mod(torch.cat([t[None].expand(n, -1), torch.randn(n, 4)], 0))"],
)  # fmt: skip
def test_a_concatenation_with_a_batch_copy_or_dense_part_is_not_a_per_token_run(body):
    facts = _facts_of_body(body)
    assert flow_of(facts, "f").per_token_calls == {}


@pytest.mark.parametrize(
    ("body", "recorded"),
    [("y = self.mod(torch.full_like(t.expand(n), 0.5))", True),
     ("ns = torch.zeros_like(t.expand(n))\ny = self.mod(ns)", True),
     ("y = self.mod(torch.empty_like(t.expand(n)))", False),  # values unknown, not one number
     ("y = self.mod(torch.full_like(t.expand(x.shape[0]), 0.5))", False)],  # a batch copy
)  # fmt: skip
def test_a_module_run_on_one_number_filled_per_token(body, recorded):
    facts = _facts_of_body(body)
    calls = list(flow_of(facts, "f").per_token_calls.values())
    assert [call.form for call in calls] == ([per_token.FILL] if recorded else [])


def _expanded_dims(expand: str):
    facts = facts_of(
        f"import torch\n\n\ndef f(t, mask, b, f, n, hidden, seq_len, num_frames, hw):\n"
        f"    return {expand}\n"
    )
    call = next(
        n for n in walk(facts.module)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
        and n.func.attr.value == "expand"
    )  # fmt: skip
    return provenance.expanded_dims(facts, call)


@pytest.mark.parametrize(
    ("expand", "numbers"),
    [("t.unsqueeze(-1).expand(b, f, seq_len // f)", True),
     ("t[..., None].expand(-1, -1, num_frames * hw)", True),
     ("t[:, None].expand(b, seq_len)", True),
     ("mask.unsqueeze(-1).expand(b, n, hidden)", False),  # a dim of features
     ("t.unsqueeze(-1).expand(b, f, 4)", False),  # a few literal copies
     ("t.unsqueeze(1).expand(-1, seq_len, -1)", False),  # rows per token: features kept
     ("t.expand(b, f, seq_len)", False),  # nothing inserted: t may be (b, f, seq_len)
     ("t.unsqueeze(1).unsqueeze(-1).expand(b, seq_len, f, seq_len)", False)],  # two dims grow
)  # fmt: skip
def test_each_number_of_a_grid_copied_once_per_token(expand, numbers):
    dims = _expanded_dims(expand)
    assert dims is not None and per_token.repeats_numbers_per_token(dims) is numbers


def _computed_runs(body: str, *, functions: str = "") -> list[tuple[str, str]]:
    """The module runs `def f(self, t, x, b, f, seq_len)` records with `body`'s lines (what
    runs, on what rows), after the copy `c` of each number of `t` once per token."""
    lines = "".join(f"    {line}\n" for line in body.splitlines())
    code = (
        f"import torch\n\n\n{functions}\n\ndef f(self, t, x, b, f, seq_len):\n"
        "    c = t.unsqueeze(-1).expand(b, f, seq_len // f).reshape(b, -1)\n" + lines
    )
    facts = facts_of(code)
    return [
        (facts.text_of(call.call.func), call.form)
        for call in flow_of(facts, "f").per_token_calls.values()
    ]


_SINUSOID = (
    "def sinusoid(dim, position):\n"
    "    angles = torch.outer(position.double(), torch.arange(dim // 2) / dim)\n"
    "    return torch.cat([angles.cos(), angles.sin()], dim=1)\n"
)


@pytest.mark.parametrize(
    "body",
    ["y = self.embed(c.flatten().float())",
     "y = self.embed(torch.outer(c.flatten(), torch.arange(64.0)).cos())",
     "c = torch.cat([c, x, x[:, ::2]], dim=1)\ny = self.embed(2 * c.flatten()[:, None])",
     "y = self.embed(sinusoid(256, c.flatten()).type_as(x))",
     "if x is not None:\n    c = torch.cat([c, x], 1)\ny = self.embed(sinusoid(256, c.flatten()))"],
)  # fmt: skip
def test_a_module_run_on_rows_computed_from_numbers_copied_per_token(body):
    """Casts, ops with numbers, `torch.outer` with a frequency vector, joins along the tokens
    and a module function doing these (called with the copy) keep rows that repeat."""
    assert _computed_runs(body, functions=_SINUSOID) == [("self.embed", per_token.COMPUTED)]


@pytest.mark.parametrize(
    "body",
    ["y = self.embed(c.flatten() * x)",  # another tensor may differ per token
     "r = torch.outer(c.flatten(), torch.arange(64.0))\ny = self.embed(torch.cat([r, x], -1))",
     "y = self.embed(sinusoid(256, x.flatten()))",  # the function given other numbers
     "y = self.embed(x, c)",  # only the first argument is what the module runs on
     "y = self.embed(torch.cumsum(c, 1))",  # a scan mixes the tokens
     "if x is not None:\n    c = x\ny = self.embed(c.flatten())"],  # one path copies nothing
)  # fmt: skip
def test_rows_that_may_differ_per_token_are_no_module_run_per_copy(body):
    assert _computed_runs(body, functions=_SINUSOID) == []


def test_numbers_copied_per_token_are_carried_into_a_module_function():
    """The callee runs the module on what the caller passes; the evidence names the call."""
    facts = facts_of(
        "import torch\n\n\ndef embed_times(model, times):\n"
        "    return model.time_embedder(times.float())\n\n\n"
        "def f(model, t, b, f, seq_len):\n"
        "    c = t.unsqueeze(-1).expand(b, f, seq_len // f).reshape(b, -1)\n"
        "    return embed_times(model, c.flatten())\n"
    )
    (call,) = flow_of(facts, "embed_times").per_token_calls.values()
    assert call.form == per_token.COMPUTED
    assert [e.message for e in call.value.evidence][0] == (
        "`f` passes numbers copied per token `c.flatten()` here"
    )
    assert flow_of(facts, "f").per_token_calls == {}
