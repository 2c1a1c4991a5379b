"""Module-level code and lambdas as flows, and the facts that cross into functions and
lambdas from the scopes around them (analysis/outer_flows.py)."""

from __future__ import annotations

import libcst as cst

from stridelint.analysis import outer_flows
from stridelint.analysis.outer_flows import LambdaFlow, ModuleFlow
from stridelint.analysis.values import Broadcast, Derived, Scalar, State
from tests.analysis.parsed import facts_of, flow_of, node, statement_of


def module_flow(facts) -> ModuleFlow:
    (flow,) = facts.flows_named("<module>")
    assert isinstance(flow, ModuleFlow)
    return flow


def lambda_flows(facts) -> list[LambdaFlow]:
    return [flow for flow in facts.flows.values() if isinstance(flow, LambdaFlow)]


def load_value(facts, flow, code: str, nth: int = 0):
    return flow.loads[node(facts, code, cst.Name, nth)]


# ---- module-level code ----------------------------------------------------------------------


def test_top_level_expand_then_reduce_is_a_sink_with_its_reduction():
    facts = facts_of("""
        import torch
        B, N, K = 4, 8, 16
        mask = torch.ones(B, 1, K).expand(B, N, K)
        count = (mask != 0).sum()
    """)
    flow = module_flow(facts)
    (sink,) = flow.sinks.values()
    assert facts.text_of(sink.node) == "mask != 0"
    assert [facts.text_of(r) for r in sink.reductions] == ["(mask != 0).sum()"]
    assert sink.statement is statement_of(facts, sink.node)
    assert isinstance(flow.env["B"], Scalar)


def test_a_module_made_of_definitions_only_has_no_module_flow():
    facts = facts_of("""
        def f(x):
            return x
    """)
    assert facts.module_flow is None
    assert facts.flows_named("<module>") == []


def test_broadcast_on_one_branch_of_a_top_level_if_is_possible_after_the_join():
    facts = facts_of("""
        import torch
        m = torch.ones(4, 1)
        if m.shape[0] > 2:
            mask = m.expand(4, 8)
        else:
            mask = m
        total = (mask > 0).sum()
    """)
    value = load_value(facts, module_flow(facts), "mask", nth=2)
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE and value.local


def test_broadcast_on_every_branch_of_a_top_level_if_stays_definite():
    facts = facts_of("""
        import torch
        if flag:
            mask = torch.ones(4, 1).expand(4, 8)
        else:
            mask = torch.zeros(1, 8).expand(4, 8)
        total = (mask > 0).sum()
    """)
    value = load_value(facts, module_flow(facts), "mask", nth=2)
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE


def test_broadcast_bound_in_a_top_level_try_is_still_broadcast_after_it():
    facts = facts_of("""
        import torch
        try:
            mask = torch.ones(4, 1).expand(4, 8)
        except RuntimeError:
            mask = torch.zeros(4, 1).expand(4, 8)
        total = (mask > 0).sum()
    """)
    value = load_value(facts, module_flow(facts), "mask", nth=2)
    assert isinstance(value, Broadcast) and value.local


def test_top_level_loop_carries_the_broadcast_value_around():
    facts = facts_of("""
        import torch
        mask = torch.ones(4, 8)
        for _ in range(3):
            total = (mask > 0).sum()
            mask = torch.ones(4, 1).expand(4, 8)
    """)
    value = load_value(facts, module_flow(facts), "mask", nth=1)
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE


def test_top_level_call_passes_a_definite_broadcast_to_the_function():
    facts = facts_of("""
        import torch
        def count(m):
            return (m != 0).sum()
        mask = torch.ones(4, 1).expand(4, 8)
        count(mask)
    """)
    value = load_value(facts, flow_of(facts, "count"), "m", nth=1)
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE
    assert value.evidence[0].message == "top-level code passes a broadcast tensor `mask` here"


def test_top_level_kernel_launch_makes_the_module_code_a_wrapper():
    facts = facts_of("""
        import triton
        @triton.jit
        def _kernel(X):
            pass
        x = load()
        _kernel[(1,)](x)
    """)
    assert "<module>" in facts.wrappers
    assert facts.in_scope(facts.module, "default")


# ---- module-level names read in functions ----------------------------------------------------


def test_function_reads_a_module_name_bound_once_to_a_broadcast():
    facts = facts_of("""
        import torch
        MASK = torch.ones(4, 1).expand(4, 8)
        def count():
            return (MASK != 0).sum()
    """)
    value = load_value(facts, flow_of(facts, "count"), "MASK", nth=1)
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE
    assert not value.local  # made at module level, not in the function
    assert value.evidence[-1].message == "`MASK` is bound once, at module level"


def test_module_name_bound_twice_is_no_fact_in_a_function():
    facts = facts_of("""
        import torch
        MASK = torch.ones(4, 1).expand(4, 8)
        MASK = MASK.contiguous()
        def count():
            return (MASK != 0).sum()
    """)
    assert load_value(facts, flow_of(facts, "count"), "MASK", nth=3) is None


def test_module_name_that_a_function_declares_global_and_rebinds_is_no_fact():
    facts = facts_of("""
        import torch
        MASK = torch.ones(4, 1).expand(4, 8)
        def reset():
            global MASK
            MASK = torch.ones(4, 8)
        def count():
            return (MASK != 0).sum()
    """)
    assert load_value(facts, flow_of(facts, "count"), "MASK", nth=3) is None


def test_module_name_shadowed_by_a_comprehension_variable_is_no_fact():
    facts = facts_of("""
        import torch
        m = torch.ones(4, 1).expand(4, 8)
        def counts(ms):
            return [(m != 0).sum() for m in ms]
    """)
    assert load_value(facts, flow_of(facts, "counts"), "m", nth=1) is None


def test_star_import_makes_every_module_name_uncertain():
    facts = facts_of("""
        import torch
        MASK = torch.ones(4, 1).expand(4, 8)
        from elsewhere import *
        def count():
            return (MASK != 0).sum()
    """)
    assert load_value(facts, flow_of(facts, "count"), "MASK", nth=1) is None


def test_module_derived_values_do_not_cross_into_functions():
    """A module-level sink belongs to the module flow: a function's reduction of its result
    is no reduction of that sink."""
    facts = facts_of("""
        import torch
        M = torch.ones(4, 1).expand(4, 8) != 0
        def count():
            return M.sum()
    """)
    (sink,) = module_flow(facts).sinks.values()
    assert sink.reductions == []
    assert load_value(facts, flow_of(facts, "count"), "M", nth=1) is None


# ---- lambdas ---------------------------------------------------------------------------------


def test_lambda_body_is_a_flow_with_its_parameters_unknown():
    facts = facts_of("""
        B, N = 4, 8
        f = lambda t: (t.expand(B, N) > 0).sum()
    """)
    (flow,) = lambda_flows(facts)
    assert load_value(facts, flow, "t", nth=1) is None
    (sink,) = flow.sinks.values()
    assert facts.text_of(sink.node) == "t.expand(B, N) > 0"
    assert [facts.text_of(r) for r in sink.reductions] == ["(t.expand(B, N) > 0).sum()"]
    assert sink.statement is statement_of(facts, sink.node)  # the statement making the lambda
    assert flow.caller == "<module>"


def test_lambda_closing_over_a_broadcast_local_bound_once_sees_it():
    facts = facts_of("""
        def wrapper(x, B, N):
            e = x.expand(B, N)
            h = lambda: (e != 0).sum()
            return h()
    """)
    (flow,) = lambda_flows(facts)
    value = load_value(facts, flow, "e", nth=1)
    assert isinstance(value, Broadcast) and value.state is State.DEFINITE
    assert flow.caller == "wrapper"
    assert len(flow.sinks) == 1


def test_lambda_made_before_its_closure_name_is_bound_still_sees_the_one_binding():
    facts = facts_of("""
        def wrapper(x, B, N):
            h = lambda: (e != 0).sum()
            e = x.expand(B, N)
            return h()
    """)
    (flow,) = lambda_flows(facts)
    assert isinstance(load_value(facts, flow, "e", nth=0), Broadcast)


def test_lambda_closing_over_a_local_rebound_later_sees_nothing():
    facts = facts_of("""
        def wrapper(x, B, N):
            e = x.expand(B, N)
            h = lambda: (e != 0).sum()
            e = e.contiguous()
            return h()
    """)
    (flow,) = lambda_flows(facts)
    assert load_value(facts, flow, "e", nth=1) is None
    assert flow.sinks == {}


def test_lambda_parameter_shadowing_a_broadcast_local_is_unknown():
    facts = facts_of("""
        def wrapper(x, B, N):
            e = x.expand(B, N)
            h = lambda e: (e != 0).sum()
            return h(x)
    """)
    (flow,) = lambda_flows(facts)
    assert load_value(facts, flow, "e", nth=2) is None
    assert flow.sinks == {}


def test_lambda_sees_a_wrapper_parameter_documented_as_broadcast():
    facts = facts_of('''
        import triton
        @triton.jit
        def _kernel(X, N):
            pass
        def wrapper(mask):
            """mask: a bool mask, broadcastable to the input."""
            count = lambda: (mask != 0).sum()
            _kernel[(1,)](mask, count())
    ''')
    (flow,) = lambda_flows(facts)
    value = load_value(facts, flow, "mask", nth=1)
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE
    assert facts.in_scope(flow.func, "default")  # scope follows the function making it


def test_nested_lambda_sees_its_own_enclosing_lambda_scope_only():
    facts = facts_of("""
        def wrapper(x, B, N):
            e = x.expand(B, N)
            outer = lambda: (lambda: (e != 0).sum())
            return outer()()
    """)
    inner = [f for f in lambda_flows(facts) if isinstance(f.enclosing, LambdaFlow)]
    (flow,) = inner
    assert load_value(facts, flow, "e", nth=1) is None  # `e` belongs two scopes out


def test_lambda_default_runs_where_the_lambda_is_made():
    facts = facts_of("""
        def wrapper(x, B, N):
            f = lambda m=x.expand(B, N): m
            return f
    """)
    flow = flow_of(facts, "wrapper")
    default = node(facts, "x.expand(B, N)", cst.Call)
    assert isinstance(flow.value_of(default), Broadcast)


def test_derived_values_do_not_cross_into_lambdas():
    facts = facts_of("""
        def wrapper(x, B, N):
            m = x.expand(B, N) != 0
            f = lambda: m.sum()
            return f()
    """)
    (flow,) = lambda_flows(facts)
    assert load_value(facts, flow, "m", nth=1) is None
    (sink,) = flow_of(facts, "wrapper").sinks.values()
    assert sink.reductions == []
    assert not isinstance(flow_of(facts, "wrapper").env.get("m"), Broadcast)
    assert isinstance(flow_of(facts, "wrapper").env.get("m"), Derived)


# ---- where module-level fixes may read module names -----------------------------------------


def test_module_name_bound_after_the_statement_is_late():
    facts = facts_of("""
        import torch
        mask = torch.ones(4, 1).expand(4, 8)
        count = (mask != 0).sum()
        import math
    """)
    statement = statement_of(facts, node(facts, "mask != 0", cst.Comparison))
    reason = outer_flows.bound_late(facts, facts.scopes, statement, ["math"], [])
    assert reason == "`math` is bound only after this module-level code runs"
    assert outer_flows.bound_late(facts, facts.scopes, statement, ["torch"], []) is None


def test_helper_inserted_after_the_statement_is_late():
    facts = facts_of("""
        import torch
        mask = torch.ones(4, 1).expand(4, 8)
        count = (mask != 0).sum()
    """)
    statement = statement_of(facts, node(facts, "mask != 0", cst.Comparison))
    start = facts.span(statement)[0]
    assert outer_flows.bound_late(facts, facts.scopes, statement, [], [start]) is None
    assert outer_flows.bound_late(facts, facts.scopes, statement, [], [start + 1]) is not None


def test_only_code_outside_functions_runs_at_module_level():
    facts = facts_of("""
        f = lambda t: t
        def g():
            return lambda t: t
    """)
    scopes = facts.scopes
    lambdas = [n for n in facts.flows if isinstance(n, cst.Lambda)]
    kinds = sorted(
        outer_flows.runs_at_module_level(scopes, scopes.scope_of_function(n)) for n in lambdas
    )
    assert kinds == [False, True]
    assert outer_flows.runs_at_module_level(scopes, scopes.module)
