"""Return summaries (analysis/module.py): a call of a module function that returns a broadcast
it makes gives the caller that broadcast, with the callee's evidence."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis.values import Broadcast, State
from tests.analysis.parsed import facts_of, flow_of, node


def _value_of_call(code: str, caller: str, call: str):
    facts = facts_of(code)
    return flow_of(facts, caller).value_of(node(facts, call, cst.Call))


def test_a_function_that_returns_its_expand_gives_callers_a_definite_broadcast():
    value = _value_of_call(
        """
        def head_mask(keep):
            return keep[:, None, :].expand(-1, 8, -1)

        def bias(keep):
            return (~head_mask(keep)).float()
        """,
        "bias",
        "head_mask(keep)",
    )
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE
    assert not value.local  # made in the callee: a hoist cannot reach its expand
    assert value.evidence[0].message.startswith("`head_mask` returns the broadcast")
    assert "makes a stride-0 view" in value.evidence[1].message


def test_a_broadcast_returned_on_one_path_only_is_possible():
    value = _value_of_call(
        """
        def maybe_rows(x, n, flag):
            if flag:
                return x[None].expand(n, -1)
            return x

        def use(x, n):
            return maybe_rows(x, n, True).float()
        """,
        "use",
        "maybe_rows(x, n, True)",
    )
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE


def test_falling_off_the_end_makes_the_broadcast_possible():
    value = _value_of_call(
        """
        def rows(x, n, flag):
            if flag:
                return x[None].expand(n, -1)

        def use(x, n):
            return rows(x, n, True)
        """,
        "use",
        "rows(x, n, True)",
    )
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE


def test_a_returned_parameter_is_not_summarized():
    """Which caller's broadcast a pass-through carries is not known: no summary."""
    value = _value_of_call(
        """
        def on_device(x, device):
            return x.to(device)

        def caller_a(m, n, device):
            return on_device(m.expand(n, -1), device)

        def caller_b(d, device):
            return on_device(d, device).float()
        """,
        "caller_b",
        "on_device(d, device)",
    )
    assert value is None


def test_a_generator_is_not_summarized():
    value = _value_of_call(
        """
        def rows(x, n):
            yield x
            return x[None].expand(n, -1)

        def use(x, n):
            return rows(x, n)
        """,
        "use",
        "rows(x, n)",
    )
    assert value is None


def test_a_copy_of_the_expand_is_not_a_broadcast_return():
    value = _value_of_call(
        """
        def repeat_rows(x, n):
            return x[None].expand(n, -1).contiguous()

        def use(x, n):
            return repeat_rows(x, n).float()
        """,
        "use",
        "repeat_rows(x, n)",
    )
    assert not isinstance(value, Broadcast)
