"""One number copied per token, and the modules and methods run on such copies."""

from __future__ import annotations

import libcst as cst
import pytest

from stridelint.analysis import per_token
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
