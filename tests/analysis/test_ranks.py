"""ranks: at least how many dims a tensor expression has."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis.ranks import minimum_rank
from stridelint.analysis.scopes import Scopes
from tests.analysis.parsed import facts_of, flow_of, node


def _rank(code: str, expression: str, kind=cst.BaseExpression) -> int:
    facts = facts_of(code)
    flow = flow_of(facts, "f")
    return minimum_rank(facts, Scopes(facts.module), flow, node(facts, expression, kind))


def test_expand_with_sizes_gives_their_count():
    assert _rank("def f(x, n: int):\n    return x.expand(n, -1)\n", "x.expand(n, -1)") == 2


def test_expand_with_a_star_counts_only_the_int_sizes():
    code = "def f(x, n: int):\n    return x.expand(n, *x.shape)\n"
    assert _rank(code, "x.expand(n, *x.shape)") == 1


def test_expand_with_one_unknown_argument_may_be_zero_dims():
    assert _rank("def f(x, shape):\n    return x.expand(shape)\n", "x.expand(shape)") == 0


def test_broadcast_to_counts_the_shape_tuple():
    code = "import torch\n\ndef f(x, n: int):\n    return torch.broadcast_to(x, (n, 3, *x.shape))\n"
    assert _rank(code, "torch.broadcast_to(x, (n, 3, *x.shape))") == 2


def test_none_indexes_add_dims():
    assert _rank("def f(x):\n    return x[None, :, None]\n", "x[None, :, None]") == 2


def test_a_parameter_may_be_zero_dims():
    assert _rank("def f(x):\n    return x\n", "x", cst.Name) == 0


def test_a_name_takes_the_least_rank_of_its_assignments():
    code = """
    def f(x, n: int, c):
        if c:
            m = x.expand(n, -1, -1)
        else:
            m = x.expand(n, -1)
        return m
    """
    facts = facts_of(code)
    load = node(facts, "return m", cst.SimpleStatementLine).body[0].value
    assert minimum_rank(facts, Scopes(facts.module), flow_of(facts, "f"), load) == 2


def test_a_name_bound_by_unpacking_is_unknown():
    code = "import torch\n\ndef f(x, y):\n    m, d = torch.broadcast_tensors(x, y)\n    return m\n"
    facts = facts_of(code)
    flow = flow_of(facts, "f")
    load = node(facts, "return m", cst.SimpleStatementLine).body[0].value
    assert minimum_rank(facts, Scopes(facts.module), flow, load) == 0
