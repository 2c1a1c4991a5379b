"""A module's own parameters, expanded, and the casts to a dtype the code reads at runtime."""

from __future__ import annotations

import libcst as cst
import pytest

from stridelint.analysis import dtypes
from stridelint.analysis.tree import walk
from tests.analysis.parsed import facts_of, flow_of, node, statement_of

_MODULES = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.inherited = nn.Parameter(torch.zeros(4))


class Holder(Base):
    def __init__(self, n, learned):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n, 8))
        self.spelled_out = torch.nn.Parameter(torch.ones(n))
        self.optional = None
        if learned:
            self.optional = nn.Parameter(torch.zeros(n))
        self.table = torch.zeros(n, 8)
        self.rebound = nn.Parameter(torch.zeros(n))
        self.rebound = torch.zeros(n)
        self.never_set = None

    def forward(self, x):
        a = self.weight[None].expand(x.shape[0], -1, -1)
        b = self.table[None].expand(x.shape[0], -1, -1)
        tiled = self.weight.unsqueeze(0).expand(2, -1, -1).reshape(-1, 8)
        c = tiled[None].expand(x.shape[0], -1, -1)
        d = self.weight.float()[None].expand(x.shape[0], -1, -1)
        e = self.inherited[None].expand(x.shape[0], -1)
        return a, b, c, d, e
"""


def test_parameters_are_the_attributes_init_assigns_a_parameter():
    facts = facts_of(_MODULES)
    assert facts.classes.parameters("Holder") == {"weight", "spelled_out", "optional", "inherited"}
    assert facts.classes.parameters("Base") == {"inherited"}
    assert facts.classes.parameters("Missing") == frozenset()


@pytest.mark.parametrize(
    ("name", "weights"),
    [("a", True),  # the parameter, viewed and expanded
     ("b", False),  # a plain tensor attribute keeps the dtype it was made in
     ("c", True),  # a name bound to the parameter tiled by a reshape, expanded again
     ("d", False),  # `.float()` gives another dtype: no longer the module's
     ("e", True)],  # a base class's parameter
)  # fmt: skip
def test_expands_of_a_parameter_are_weights(name, weights):
    facts = facts_of(_MODULES)
    flow = flow_of(facts, "forward")
    target = node(facts, name, cst.Name)  # the first: its assignment's target
    assign = statement_of(facts, target).body[0]
    assert flow.value_of(assign.value).weights is weights


def test_a_function_outside_a_class_has_no_weights():
    facts = facts_of(
        """
        def f(self, x):
            return self.weight[None].expand(x.shape[0], -1, -1)
        """
    )
    call = next(n for n in walk(facts.module) if isinstance(n, cst.Call))
    assert not flow_of(facts, "f").value_of(call).weights


@pytest.mark.parametrize(
    ("cast", "at_runtime"),
    [("w.to(x.dtype)", True), ("w.to(dtype=dtype)", True), ("w.type_as(x)", True),
     ("w.to(device=x.device, dtype=x.dtype)", True),
     ("w.float()", False), ("w.to(torch.float32)", False), ("w.to(named)", False),
     ("w.type_as(torch.zeros(2, dtype=torch.float16))", False),
     ("w.to(x.device)", False)],  # no dtype at all
)  # fmt: skip
def test_cast_targets_read_at_runtime(cast, at_runtime):
    facts = facts_of(
        f"""
        import torch

        def f(w, x, dtype):
            named = torch.bfloat16
            return {cast}
        """
    )
    call = node(facts, cast, cst.Call)
    assert dtypes.reads_target_at_runtime(facts, call, statement_of(facts, call)) is at_runtime
