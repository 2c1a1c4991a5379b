"""uses: how the code uses a tensor value, followed through names and views."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis import uses
from tests.analysis.parsed import facts_of, flow_of, node

_KERNEL = """
import torch
import triton

@triton.jit
def k(X, s0, s1):
    pass
"""


def _kinds(body: str, value: str = "x.expand(n, -1) + 1") -> list[str]:
    """The kinds of the uses of `value`, bound to `t` at the top of f's body."""
    facts = facts_of(_KERNEL + f"\ndef f(x, n, u):\n    t = {value}\n" + body)
    found = uses.uses_of(facts, flow_of(facts, "f"), node(facts, value, cst.BaseExpression))
    return [use.kind for use in found]


def test_an_elementwise_op_reads_it():
    assert _kinds("    y = t * 2\n") == [uses.READ]


def test_a_view_is_followed_to_its_own_uses():
    assert _kinds("    y = t.t()[0] * 2\n") == [uses.READ]


def test_a_later_binding_is_followed_to_its_loads():
    assert _kinds("    v = t\n    return v\n") == [uses.OPAQUE]


def _needs(body: str, value: str = "x.expand(n, -1) + 1") -> list[str | None]:
    facts = facts_of(_KERNEL + f"\ndef f(x, n, u):\n    t = {value}\n" + body)
    found = uses.uses_of(facts, flow_of(facts, "f"), node(facts, value, cst.BaseExpression))
    return [use.need for use in found]


def test_an_identity_test_reads_no_element():
    """`t is None` compares objects: SL302 does not count it as a consumer of the layout."""
    assert _needs("    y = t is not None\n    z = u is t\n") == [uses.IDENTITY, uses.IDENTITY]
    assert _needs("    y = t == u\n    z = t is u == u\n") == [None, None]


def test_an_element_of_a_comprehension_says_so():
    """Not `it is used in` the element's own code, which names the tensor itself."""
    facts = facts_of("def f(xs, n):\n    ys = [x.expand(n, -1).reshape(-1) for x in xs]\n")
    value = node(facts, "x.expand(n, -1).reshape(-1)", cst.BaseExpression)
    (use,) = uses.uses_of(facts, flow_of(facts, "f"), value)
    assert (use.kind, use.why) == (uses.OPAQUE, "it is each element of a list comprehension")


def test_an_in_place_write_needs_it_dense():
    assert _kinds("    t.add_(1)\n") == [uses.DENSE]


def test_a_kernel_given_its_strides_reads_it_with_them():
    kinds = _kinds("    k[(1,)](t, *t.stride())\n")
    assert sorted(kinds) == sorted([uses.STRIDED_LAUNCH, uses.READ])


def test_a_kernel_given_no_strides_needs_it_dense():
    assert _kinds("    k[(1,)](t, 1, 1)\n") == [uses.DENSE]


def _uses_through(helper: str, call: str = "run(t, u)") -> list[uses.Use]:
    """The uses of `t` in f, which hands it to the module function `run` defined by helper."""
    value = "x.expand(n, -1).contiguous()"
    facts = facts_of(_KERNEL + helper + f"\ndef f(x, n, u):\n    t = {value}\n    {call}\n")
    return uses.uses_of(facts, flow_of(facts, "f"), node(facts, value, cst.BaseExpression))


def test_a_helper_that_launches_its_parameter_without_strides_needs_it_dense():
    helper = "\ndef run(a, b):\n    k[(1,)](a, 1, 1)\n"
    for call in ("run(t, u)", "run(b=u, a=t)"):
        [use] = _uses_through(helper, call)
        assert (use.kind, use.need) == (uses.DENSE, uses.LAUNCH)
        assert use.why == "`k` receives it without its strides in `run`"
    [use] = _uses_through(helper, "run(u, t)")  # t is `b`, which run only holds
    assert use.kind == uses.OPAQUE


def test_a_helper_that_gives_the_kernel_its_strides_or_rebinds_it_lets_it_escape():
    strided = "\ndef run(a, b):\n    k[(1,)](a, *a.stride())\n"
    rebound = "\ndef run(a, b):\n    a = b\n    k[(1,)](a, 1, 1)\n"
    for helper in (strided, rebound):
        assert [use.kind for use in _uses_through(helper)] == [uses.OPAQUE]


def test_a_launch_two_calls_deep_stays_unseen():
    helper = "\ndef go(a):\n    k[(1,)](a, 1, 1)\n\ndef run(a, b):\n    go(a)\n"
    [use] = _uses_through(helper)
    assert (use.kind, use.why) == (uses.OPAQUE, "it is passed to `run`")


def test_reading_its_strides_outside_a_launch_observes_the_layout():
    assert _kinds("    s = t.stride(0)\n") == [uses.OPAQUE]


def test_a_lambda_that_captures_it_lets_it_escape():
    assert _kinds("    h = lambda: t\n") == [uses.OPAQUE]


def test_each_use_says_why_for_messages():
    facts = facts_of("def f(x, n):\n    return x.expand(n, -1) + 1\n")
    value = node(facts, "x.expand(n, -1) + 1", cst.BinaryOperation)
    [use] = uses.uses_of(facts, flow_of(facts, "f"), value)
    assert use.why == "it is returned to the caller"


def test_passes_strides_sees_a_splat_and_a_single_stride():
    facts = facts_of(
        _KERNEL + "\ndef f(a, b):\n    k[(1,)](a, b, *a.stride())\n    k[(1,)](b, b.stride(0), 1)\n"
    )
    first, second = facts.flows_named("f")[0].launches
    assert uses.passes_strides(facts, first, node(facts, "a", cst.Name, nth=1))
    assert not uses.passes_strides(facts, first, node(facts, "b", cst.Name, nth=1))
    assert uses.passes_strides(facts, second, node(facts, "b", cst.Name, nth=2))


def test_a_module_level_binding_escapes_to_importers():
    facts = facts_of("import torch\nbase = torch.ones(4, 1)\nw = base.expand(4, 8).float()\n")
    (flow,) = facts.flows_named("<module>")
    found = uses.uses_of(facts, flow, node(facts, "base.expand(4, 8).float()", cst.Call))
    assert [(use.kind, use.why) for use in found] == [
        (uses.OPAQUE, "`w` is a module-level name other modules see")
    ]


def test_a_name_a_function_declares_global_escapes():
    value = "x.expand(n, -1).float()"
    facts = facts_of(f"def f(x, n):\n    global t\n    t = {value}\n")
    found = uses.uses_of(facts, flow_of(facts, "f"), node(facts, value, cst.Call))
    assert [use.kind for use in found] == [uses.OPAQUE]
    assert _kinds("    y = t * 2\n") == [uses.READ]  # a local stays local


def _joined(body: str, value: str = "x.expand(n, -1).float()") -> list[bool]:
    facts = facts_of(_KERNEL + f"\ndef f(x, n, u):\n    t = {value}\n" + body)
    found = uses.uses_of(facts, flow_of(facts, "f"), node(facts, value, cst.BaseExpression))
    return [uses.is_joined(facts, use) for use in found]


def test_an_element_of_torch_cat_or_stack_is_joined():
    assert _joined("    return torch.cat([t, u], dim=1)\n") == [True]
    assert _joined("    return torch.stack((u, t))\n") == [True]


def test_other_uses_are_not_joined():
    assert _joined("    return sum([t, u])\n") == [False]
    assert _joined("    y = t * 2\n    return torch.cat([y, u])\n") == [False]
    assert _joined("    return t\n") == [False]


_EXPOSING = """
import torch

def f(x, n):
    t = x.expand(n, -1)
    u = t + 1
    k = lambda: u
    class C:
        size = n
    def g():
        global w
        def h():
            return x
        return h
    return g
"""


def test_what_a_function_exposes_is_every_name_nested_code_mentions():
    """Every name a function, lambda or class nested in the owner mentions (its own name
    too); `global` in a nested function counts, as a walk of the whole function saw it."""
    facts = facts_of(_EXPOSING)
    func = facts.module.body[1]
    assert uses._exposed(facts, func).captured == {"u", "C", "size", "n", "g", "w", "h", "x"}
    assert uses._exposed(facts, facts.module).captured >= {"f", "t", "expand", "k"}
    assert "t" not in uses._exposed(facts, func).captured
    assert uses._exposed(facts, func).binds_global("w")
    assert not uses._exposed(facts, func).binds_global("t")
    assert uses._exposed(facts, facts.module).binds_global("t")


def test_what_a_function_exposes_is_read_once(monkeypatch):
    facts = facts_of(_EXPOSING)
    func = facts.module.body[1]
    walks = []
    original = uses.walk
    monkeypatch.setattr(uses, "walk", lambda n: walks.append(n) or original(n))
    first = uses._exposed(facts, func)
    count = len(walks)
    assert count > 0 and uses._exposed(facts, func) is first and len(walks) == count


def _output_sized(call: str) -> list[bool]:
    copy = "x[:, None].expand(-1, n, -1).reshape(-1, 4)"
    facts = facts_of(f"import torch\ndef f(a, x, n):\n    t = {copy}\n    y = {call}\n")
    flow = flow_of(facts, "f")
    found = uses.uses_of(facts, flow, node(facts, copy, cst.Call))
    return [uses.is_output_sized(flow, use) for use in found]


def test_an_einsum_whose_output_has_every_subscript_of_the_copy_is_output_sized():
    assert _output_sized('torch.einsum("bd,bdn->bdn", a, t)') == [True]
    assert _output_sized('torch.einsum("bdn,b->b", t, a)') == [False]  # t's own subscripts are read
    assert _output_sized('torch.einsum("bd,bdn->bd", a, t)') == [False]  # `n` is summed away
    assert _output_sized('torch.einsum("...d,bd->bd", a, t)') == [False]  # an ellipsis: unknown
