"""Launch mapping: which kernel each launch reaches and which parameter each argument binds."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from stridelint.analysis.module import ModuleFacts
from stridelint.analysis.values import Broadcast
from stridelint.source import decode

KERNEL = """
import functools
import triton

def hook(grid, kernel, args):
    return {}

@triton.jit(launch_metadata=hook)
def _k(X, Mask, N, FLAG, DIM):
    pass

@triton.jit
def _other(X, Mask, N):
    pass
"""


def facts_of(code: str) -> ModuleFacts:
    text = decode(textwrap.dedent(KERNEL + code).encode())
    return ModuleFacts(cst.parse_module(text.text), text)


def launches(code: str, function: str = "wrapper"):
    facts = facts_of(code)
    (flow,) = facts.flows_named(function)
    return facts, list(flow.launches.values())


def hook_mask(code: str):
    facts = facts_of(code)
    (flow,) = facts.flows_named("hook")
    return flow.hook_arguments.get("Mask")


def test_plain_kernel_name_is_a_launch():
    _, sites = launches("def wrapper(x, m):\n    _k[(1,)](x, m, 4, 0, 1)\n")
    assert [site.kernels for site in sites] == [("_k",)]


def test_kernel_reached_through_an_attribute_of_a_specialization():
    _, sites = launches("def wrapper(x, m, s):\n    s.get(fn=1)._k[(1,)](x, m, 4)\n")
    assert [site.kernels for site in sites] == [("_k",)]


def test_kernel_and_launcher_held_in_variables():
    code = "def wrapper(x, m, s):\n    k = s.pick()._k\n    run = k[(1,)]\n    run(x, m, 4)\n"
    _, sites = launches(code)
    assert [site.kernels for site in sites] == [("_k",)]


def test_module_level_table_of_kernels_indexed_and_got():
    code = (
        "TABLE = {'a': _k, 'b': _other}\n"
        "def wrapper(x, m, key):\n    TABLE[key][(1,)](x, m, 4)\n    TABLE.get(key)[(1,)](x, m, 4)\n"
    )
    _, sites = launches(code)
    assert [site.kernels for site in sites] == [("_k", "_other")] * 2


def test_an_attribute_not_naming_a_kernel_is_not_a_launch():
    _, sites = launches("def wrapper(x, m, s):\n    s.get()._missing[(1,)](x, m, 4)\n")
    assert sites == []


def test_positions_before_a_splat_and_keywords_after_it_are_kept():
    _, (site,) = launches("def wrapper(x, m, a):\n    _k[(1,)](x, m, *a.args, 4, FLAG=1, DIM=0)\n")
    keys = [key for key, _, _ in site.arguments]
    assert keys == [0, 1, None, "FLAG", "DIM"]


def test_double_star_arguments_bind_nothing():
    _, (site,) = launches("def wrapper(x, m, kw):\n    _k[(1,)](x, m, **kw)\n")
    assert [key for key, _, _ in site.arguments] == [0, 1]


def test_functools_partial_shifts_later_positions():
    code = "def wrapper(x, m):\n    run = functools.partial(_k[(1,)], x)\n    run(m, 4)\n"
    _, (site,) = launches(code)
    assert [key for key, _, _ in site.arguments] == [0, 1, 2]


def test_expanded_mask_before_a_splat_reaches_the_hook_by_position():
    code = "def wrapper(x, m, a):\n    m = m.expand(4, 8)\n    _k[(1,)](x, m, *a.args, DIM=0)\n"
    value = hook_mask(code)
    assert isinstance(value, Broadcast)
    assert "as `Mask`" in value.evidence[0].message


def test_mask_after_a_splat_maps_by_its_unique_name():
    code = "def wrapper(x, mask):\n    mask = mask.expand(4, 8)\n    _k[(1,)](*x.stride(), mask, 4)\n"
    assert isinstance(hook_mask(code), Broadcast)


def test_argument_after_a_splat_with_no_matching_name_is_never_guessed():
    code = "def wrapper(x, m):\n    m = m.expand(4, 8)\n    _k[(1,)](*x.stride(), m, 4)\n"
    assert hook_mask(code) is None


def test_hook_reads_through_args_get():
    code = "def wrapper(x, m):\n    m = m.expand(4, 8)\n    _k[(1,)](x, m, 4, 0, 0)\n"
    module = KERNEL.replace("return {}", "return (args.get('Mask') != 0).sum()") + code
    text = decode(textwrap.dedent(module).encode())
    facts = ModuleFacts(cst.parse_module(text.text), text)
    (flow,) = facts.flows_named("hook")
    (sink,) = flow.sinks.values()
    assert isinstance(sink.operands[0][1], Broadcast)


CUTILE = """
import cuda.tile as ct

@ct.kernel
def _tile(x, m, n: ct.Constant[int]):
    ct.store(x, index=(0,), tile=ct.load(m, index=(0,), shape=(1,)))

@ct.function
def _device_helper(t):
    return t + 1
"""


def cutile_facts(code: str) -> ModuleFacts:
    text = decode(textwrap.dedent(CUTILE + code).encode())
    return ModuleFacts(cst.parse_module(text.text), text)


def test_a_cutile_launch_names_its_kernel_and_binds_the_argument_tuple():
    facts = cutile_facts("def wrapper(x, m, s):\n    ct.launch(s, (1, 1, 1), _tile, (x, m, 4))\n")
    (flow,) = facts.flows_named("wrapper")
    (site,) = flow.launches.values()
    assert site.kernels == ("_tile",)
    assert [(key, facts.text_of(expr)) for key, expr, _ in site.arguments] == [
        (0, "x"), (1, "m"), (2, "4")
    ]
    assert "wrapper" in facts.wrappers


def test_cutile_kernels_and_device_functions_are_device_code():
    facts = cutile_facts("def wrapper(x, m, s):\n    ct.launch(s, (1,), _tile, (x, m, 4))\n")
    assert facts.flows_named("_tile") == [] and facts.flows_named("_device_helper") == []


def test_a_call_of_another_launch_function_makes_no_wrapper():
    facts = cutile_facts("def helper(x, s):\n    s.launch(x)\n")
    (flow,) = facts.flows_named("helper")
    assert flow.launches == {} and "helper" not in facts.wrappers


@pytest.mark.parametrize(
    ("header", "decorator"),
    [("import cutlass.cute as cute", "@cute.kernel"), ("from cutlass import cute", "@cute.kernel"),
     ("import tilelang.language as T", "@T.prim_func"), ("import tilelang.language as T", "@T.macro"),
     ("import helion", "@helion.kernel(static_shapes=True)"), ("import triton", "@triton.jit")],
)  # fmt: skip
def test_kernels_of_each_dsl_are_device_code(header, decorator):
    code = f"{header}\n{decorator}\ndef body(x, n):\n    y = x.expand(n, -1)\n    return y.float()\n"
    text = decode(code.encode())
    facts = ModuleFacts(cst.parse_module(text.text), text)
    assert facts.flows_named("body") == []
