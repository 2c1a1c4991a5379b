"""Whether a reshape of a broadcast tensor must copy it (semantics §1.1)."""

from __future__ import annotations

import pytest

from stridelint.analysis import reshapes
from tests.analysis.parsed import facts_of, flow_of


def merge(body: str) -> str | None:
    facts = facts_of("def f(x, n, m, shape):\n" + "".join(f"    {line}\n" for line in body.splitlines()))
    (op,) = flow_of(facts, "f").layout_ops.values()
    return reshapes.merge_of(facts, op)


@pytest.mark.parametrize(
    "body",
    [
        "y = x[:, None].expand(n, m).reshape(-1)",
        "y = x[:, None].expand(n, m).reshape(n * m)",
        "rows = n * m\ny = x[:, None].expand(n, m).reshape(rows)",
        "y = x[:, None].expand(n, m).reshape(x.numel())",
        "y = x[:, None].expand(n, m).flatten()",
        "y = x[:, None, :].expand(-1, n, -1).reshape(-1)",
        "y = x[None, :, None].expand(n, -1, m).flatten(0, 1)",  # stride-0 with a strided dim
        "y = x[None, None, :].expand(n, m, -1).reshape(-1)",  # stride-0 dims with a strided one
        # the sizes an `expand_as` target was given; the one size left covers the rest
        "g = shape.reshape(n, m, 4)\ny = x.unsqueeze(-1).expand_as(g).reshape(n, m * 4)",
        "g = shape.view(n, m, 4)\ny = x.unsqueeze(-1).expand_as(g).reshape(n, total)",
        # a kept `-1` takes the size the expanded tensor was given
        "z = x.reshape(1, -1, m)\ny = z.expand(n, -1, -1).reshape(-1, m)",
        # no size lines up, but one dim fewer and the stride-0 size is gone: merged with a
        # neighbour that keeps the source's dim (repeat_kv spelled with the heads' total)
        "y = x[:, :, None].expand(-1, -1, m, -1).reshape(a, self.heads, c)",
        "y = x[:, None].expand(-1, m, n).reshape(a, -1)",  # n restates x's own size
        # a neighbour spelled, not kept: a per-sample embedding copied per token
        "y = x.unsqueeze(1).expand(n, m, -1).reshape(-1, self.hidden)",
        "y = x.unsqueeze(1).expand(n, m, -1).reshape(a.shape[0] * a.shape[1], -1)",
        # the one expand among the assignments the name may read
        "e = x.unsqueeze(1).expand(n, m, -1)\nif n:\n    e, _ = split(e)\ny = e.reshape(-1, self.w)",
        # a transpose between the expand and the merge moves the stride-0 dim beside `n`
        "y = x.unsqueeze(0).expand(m, n, c).transpose(0, 1).reshape(n * m, c)",
        "e = x[None].expand(m, n, c).transpose(1, 0)\ny = e.reshape(n * m, c)",
        "e = x[None].expand(m, -1, -1)\ny = e.transpose(0, 1).reshape(-1, c)",
    ],
)
def test_flattening_a_stride_0_dim_with_another_copies(body):
    assert merge(body) is not None


@pytest.mark.parametrize(
    "body",
    [
        "y = x[:, None].expand(n, m).reshape(shape)",  # one name: may be a whole shape
        "y = x[:, None].expand(n, m).reshape(n, m)",  # same shape: a view
        "y = x[:, None].expand(1, m).reshape(-1)",  # one dim of size > 1: a view
        "y = x[None, None].expand(n, m).reshape(-1)",  # only stride-0 dims merged: a view
        "y = x[None, None].expand(n, m).flatten()",
        "y = x[None, None, :].expand(n, m, -1).reshape(n * m, -1)",
        "y = x[None, None, :].expand(n, m, -1).flatten(0, 1)",
        "y = x[:, None, None].expand(-1, 1, m).flatten(1)",  # a size-1 dim with a stride-0 one
        "g = shape.reshape(n, m, 4)\ny = x.unsqueeze(-1).expand_as(g).reshape(n * m, 4)",
        "z = x.reshape(1, -1, m)\ny = z.expand(n, -1, -1).reshape(n, -1)",  # splits nothing
        "y = x.unsqueeze(-1).expand_as(shape).reshape(n, total)",  # target's sizes unknown
        "g = shape.reshape(n, -1, 4)\ny = x.unsqueeze(-1).expand_as(g).reshape(n, total)",
        "z = x.reshape(1, -1, m)\ny = z.expand(n, -1, -1).reshape(a, b)",  # two sizes left
        "y = x[:, :, None].expand(-1, -1, m, -1).reshape(a, b, m * c)",  # m is kept
        "y = x[:, :, None].expand(-1, -1, m, -1).reshape(a, b, c, d)",  # may only split
        "y = x[:, None].expand(-1, m, 1).reshape(a, b)",  # may merge only with a size-1 dim
        "y = x[None].expand(m, -1, -1).reshape(a, b)",  # at an end: `a` may be m's size
        "y = x.unsqueeze(1).expand(n, m, 1).reshape(a, b)",  # may merge only with a size-1 dim
        "y = x[:, None, None].expand(-1, m, 1, -1).reshape(a, b, c)",  # beside an inserted dim
        # two expands the name may read: which one is not known
        "if n:\n    e = x.unsqueeze(1).expand(n, m, -1)\nelse:\n    e = x.unsqueeze(1).expand(m, n, -1)\n"
        "y = e.reshape(-1, self.w)",
        # the transpose leaves the stride-0 dim apart from the dims the reshape merges
        "y = x.unsqueeze(0).expand(m, n, c).transpose(1, 2).reshape(m, n * c)",
        "y = x.unsqueeze(0).expand(m, n, c).transpose(0, 1).reshape(n, m, c)",
        "y = x.unsqueeze(0).expand(m, n, c).transpose(0, k).reshape(n * m, c)",  # k not literal
    ],
)
def test_a_reshape_that_may_be_a_view_is_not_a_merge(body):
    assert merge(body) is None
