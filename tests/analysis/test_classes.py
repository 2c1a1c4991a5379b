"""Calls inside methods (analysis/classes.py): which method of the module `self.helper(...)`, a
submodule `self.norm(...)` or a block of a ModuleList runs, and the facts carried along."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis.classes import ClassTable
from stridelint.analysis.values import Broadcast, Dense, State
from tests.analysis.parsed import facts_of, node

MODEL = """
import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x, pos=None, diff=None):
        return x

    @staticmethod
    def make(n):
        return n

    @classmethod
    def build(cls):
        return cls()


class Base(nn.Module):
    def shared(self, x):
        return x


class Model(Base):
    def __init__(self, depth):
        super().__init__()
        self.one = Block()
        self.listed = nn.ModuleList([Block() for _ in range(depth)])
        self.generated = nn.ModuleList(Block() for _ in range(depth))
        self.appended = nn.ModuleList()
        for _ in range(depth):
            self.appended.append(Block())
        self.mixed = nn.ModuleList([Block(), Base()])
        self.rebound = Block()
        self.rebound = Base()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        return x
"""


def _table() -> ClassTable:
    return ClassTable(cst.parse_module(MODEL))


def test_methods_are_keyed_by_class_and_static_methods_take_no_instance():
    table = _table()
    assert {"Block.forward", "Block.make", "Model.__init__", "Base.shared"} <= table.methods.keys()
    assert table.methods["Block.forward"].bound and not table.methods["Block.make"].bound
    assert table.self_name(table.methods["Block.forward"].func) == "self"
    assert table.self_name(table.methods["Block.make"].func) is None
    assert table.self_name(table.methods["Block.build"].func) is None


def test_a_method_call_on_self_finds_the_class_or_a_module_level_base():
    table = _table()
    assert table.method("Model", "forward") == "Model.forward"
    assert table.method("Model", "shared") == "Base.shared"
    assert table.method("Model", "missing") is None
    assert table.method("Elsewhere", "forward") is None


def test_submodules_are_what_the_constructor_assigns():
    table = _table()
    assert table.submodule("Model", "one") == ("Block.forward", False)
    for listed in ("listed", "generated", "appended"):
        assert table.submodule("Model", listed) == ("Block.forward", True), listed
    # two classes, an attribute bound twice, a class from elsewhere: not known
    for unknown in ("mixed", "rebound", "linear"):
        assert table.submodule("Model", unknown) is None, unknown


CALLS = """
import torch
from torch import nn


class Layer(nn.Module):
    def forward(self, x, pos=None, diff=None):
        return (diff >= 0).float()


class Model(nn.Module):
    def __init__(self, depth, heads):
        super().__init__()
        self.heads = heads
        self.blocks = nn.ModuleList([Layer() for _ in range(depth)])

    def _diff(self, x):
        n = x.shape[1]
        return x[:, None].expand(-1, self.heads, n)

    def forward(self, x):
        diff = self._diff(x)
        for i, block in enumerate(self.blocks):
            x = block(x, None, diff)
        return x
"""


def test_a_method_that_returns_its_expand_gives_self_calls_a_definite_broadcast():
    facts = facts_of(CALLS)
    (flow,) = [f for f in facts.flows_named("forward") if facts.function_key(f.func) == "Model.forward"]
    value = flow.value_of(node(facts, "self._diff(x)", cst.Call))
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE
    assert value.evidence[0].message.startswith("`Model._diff` returns the broadcast")


def test_a_block_of_a_module_list_receives_the_broadcast_by_position_after_self():
    facts = facts_of(CALLS)
    (flow,) = [f for f in facts.flows_named("forward") if facts.function_key(f.func) == "Layer.forward"]
    diff = node(facts, "diff", cst.Name, nth=1)  # the load in `diff >= 0`
    value = flow.value_of(diff)
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE
    assert "`Model.forward` passes a broadcast tensor `diff` here" in value.evidence[0].message
    assert flow.sinks, "the comparison materializes the broadcast"


def test_a_method_named_like_a_module_function_gets_only_its_own_calls_facts():
    facts = facts_of(
        """
        import torch

        def step(m):
            return m.float()

        class A:
            def step(self, m):
                return m.float()

        def run(x):
            return step(x[:, None].expand(-1, 4))
        """
    )
    by_key = {facts.function_key(f.func): f for f in facts.flows.values() if hasattr(f.func, "name")}
    assert by_key["step"].sinks and not by_key["A.step"].sinks


def test_a_position_grid_passed_on_stays_a_grid():
    """Position ids expanded over the batch, passed to a rotary module's forward: small there
    too (low severity), as where they were made."""
    facts = facts_of(
        """
        import torch
        from torch import nn

        class Rotary(nn.Module):
            def forward(self, x, position_ids):
                return position_ids[..., None].float()

        class Attention(nn.Module):
            def __init__(self):
                super().__init__()
                self.rotary = Rotary()

            def forward(self, x, n):
                positions = torch.arange(n).unsqueeze(0).expand(x.shape[0], -1)
                return self.rotary(x, position_ids=positions)
        """
    )
    (flow,) = [f for f in facts.flows_named("forward") if facts.function_key(f.func) == "Rotary.forward"]
    value = flow.initial_env["position_ids"]
    assert isinstance(value, Broadcast) and value.grid


CONCATENATED = """
import torch
from torch import nn

class Block(nn.Module):
    def forward(self, x, temb):
        return x * temb.float()

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(4)])

    def forward(self, x, t, t0, n: int, history: int):
        temb = t[:, None].expand(-1, n, -1)
        if history > 0:
            temb = torch.cat([t0[:, None].expand(-1, history, -1), temb], dim=1)
        for block in self.blocks:
            x = block(x, temb)
        return x
"""


def _block_flow(code: str):
    facts = facts_of(code)
    (flow,) = [
        f for f in facts.flows_named("forward") if facts.function_key(f.func) == "Block.forward"
    ]
    return facts, flow


def test_an_expand_or_its_concatenation_reaches_a_block_as_repeated_on_every_path():
    facts, flow = _block_flow(CONCATENATED)
    value = flow.value_of(node(facts, "temb", cst.Name, nth=1))
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE and value.repeated
    passed = "`Model.forward` passes a possibly broadcast tensor `temb` here"
    assert passed in value.evidence[0].message
    assert flow.sinks, "the cast runs at full size on every path"


def test_a_concatenation_of_expands_reaches_a_block_as_one():
    facts, flow = _block_flow(CONCATENATED.replace("if history > 0:\n            ", ""))
    value = flow.value_of(node(facts, "temb", cst.Name, nth=1))
    assert isinstance(value, Dense) and value.concatenated is not None
    message = value.concatenated.evidence[0].message
    assert "`Model.forward` passes a concatenation of broadcasts `temb` here" in message
    assert flow.concatenated_ops, "the cast runs on the concatenation at its full size"


def test_a_dense_tensor_on_one_path_keeps_a_block_from_seeing_repetition():
    code = CONCATENATED.replace(
        "temb = torch.cat([t0[:, None].expand(-1, history, -1), temb], dim=1)", "temb = t0"
    )
    facts, flow = _block_flow(code)
    value = flow.value_of(node(facts, "temb", cst.Name, nth=1))
    assert isinstance(value, Broadcast) and not value.repeated
