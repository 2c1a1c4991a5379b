"""dtypes: the dtype a cast converts to and the dtype the code shows a tensor has."""

from __future__ import annotations

import libcst as cst
import pytest

from stridelint.analysis import dtypes
from tests.analysis.parsed import facts_of, node, statement_of


@pytest.mark.parametrize(
    ("cast", "dtype"),
    [
        ("x.half()", "float16"),
        ("x.to(torch.float16)", "float16"),
        ("x.to(torch.long)", "int64"),
        ("x.to(dtype=torch.bool)", "bool"),
        ("x.type(y.dtype)", "y.dtype"),
    ],
)
def test_cast_dtype_is_canonical_or_the_dtype_code(cast, dtype):
    facts = facts_of(f"import torch\nz = {cast}\n")
    assert dtypes.cast_dtype(facts, node(facts, cast, cst.Call)) == dtype


@pytest.mark.parametrize("call", ["x.to(device)", "x.half(1)", "x.sum()"])
def test_cast_dtype_is_none_without_a_dtype_in_the_code(call):
    facts = facts_of(f"z = {call}\n")
    assert dtypes.cast_dtype(facts, node(facts, call, cst.Call)) is None


def _dtype_of(code: str) -> str | None:
    """dtype_of the last load of `t` in f."""
    facts = facts_of("import torch\n" + code)
    load = node(facts, "t", cst.Name, nth=-1)
    return dtypes.dtype_of(facts, load, statement_of(facts, load))


def test_dtype_of_a_comparison_is_bool_through_an_expand_and_a_view():
    code = "def f(m, n):\n    t = (m > 0)[:, None].expand(-1, n).t()\n    y = t.bool()\n"
    assert _dtype_of(code) == "bool"


def test_dtype_of_follows_a_name_to_its_cast():
    code = "def f(m, n):\n    h = m.to(torch.float16)\n    t = h.expand(n, -1)\n    y = t + 1\n"
    assert _dtype_of(code) == "float16"


def test_dtype_of_a_parameter_is_unknown():
    assert _dtype_of("def f(t):\n    y = t + 1\n") is None


@pytest.mark.parametrize(
    ("code", "integer"),
    [("torch.int64", True), ("torch.bool", True), ("long", True), ("torch.float32", False),
     ("x.dtype", False)],
)  # fmt: skip
def test_names_integer_dtype_reads_the_dtype_spelling(code, integer):
    assert dtypes.names_integer_dtype(cst.parse_expression(code)) is integer


def test_dtype_seen_through_negation_and_same_dtype_elementwise_ops():
    from stridelint.analysis.dtypes import dtype_of
    from tests.analysis.parsed import facts_of, node, statement_of

    facts = facts_of(
        "import torch\n"
        "def f(a_log, x):\n"
        "    a = -torch.exp(a_log.float())\n"
        "    b = x.half().abs()\n"
        "    c = torch.exp(x)\n"
        "    return a, b, c\n"
    )
    statement = statement_of(facts, node(facts, "return a, b, c"))
    names = {n: node(facts, n, nth=-1) for n in ("a", "b", "c")}
    assert dtype_of(facts, names["a"], statement) == "float32"
    assert dtype_of(facts, names["b"], statement) == "float16"
    assert dtype_of(facts, names["c"], statement) is None  # x's dtype is not in the code


@pytest.mark.parametrize(
    ("dtype", "size"),
    [("bool", 1), ("bfloat16", 2), ("float32", 4), ("int64", 8), ("complex128", 16)],
)
def test_itemsize_of_a_canonical_dtype(dtype, size):
    assert dtypes.itemsize(dtype) == size


@pytest.mark.parametrize("dtype", [None, "x.dtype", "self.dtype"])
def test_itemsize_is_unknown_when_the_code_does_not_name_the_dtype(dtype):
    assert dtypes.itemsize(dtype) is None


def _cast_target(code: str, cast: str) -> str | None:
    facts = facts_of("import torch\n" + code)
    call = node(facts, cast, cst.Call)
    return dtypes.cast_target(facts, call, statement_of(facts, call))


def test_type_as_converts_to_the_dtype_the_other_tensor_is_shown_to_have():
    code = "def f(a, b):\n    o = b.half()\n    y = a.type_as(o)\n"
    assert _cast_target(code, "a.type_as(o)") == "float16"


def test_type_as_of_a_tensor_of_unknown_dtype_has_no_known_target():
    assert _cast_target("def f(a, b):\n    y = a.type_as(b)\n", "a.type_as(b)") is None


def test_a_dtype_set_on_one_branch_only_is_unknown():
    code = (
        "def f(m, n, c):\n    h = m\n    if c:\n        h = m.half()\n"
        "    t = h.expand(n, -1)\n    y = t + 1\n"
    )
    assert _dtype_of(code) is None


@pytest.mark.parametrize(
    ("branches", "dtype"),
    [("    if c:\n        h = m.half()\n    else:\n        h = n.half()\n", "float16"),
     ("    if c:\n        h = m.half()\n    elif n:\n        h = n.half()\n"
      "    else:\n        h = m.to(torch.float16)\n", "float16"),
     ("    if c:\n        h = m.half()\n    else:\n        h = n.float()\n", None),
     ("    if c:\n        h = m.half()\n    elif n:\n        h = n.half()\n", None),  # no else
     ("    if c:\n        h = m.half()\n        h += 1\n    else:\n        h = n.half()\n",
      None)],  # a branch that ends by another binding
)  # fmt: skip
def test_a_dtype_every_branch_of_an_if_gives_is_known_after_it(branches, dtype):
    code = (
        "import torch\ndef f(m, n, c):\n" + branches
        + "    with torch.no_grad():\n        t = h.expand(n, -1)\n        y = t + 1\n"
    )
    assert _dtype_of(code) == dtype


def test_dtype_of_a_type_as_result_is_the_other_tensors():
    code = (
        "def f(m, n, w):\n    o = w.bfloat16()\n    t = m.type_as(o).expand(n, -1)\n"
        "    y = t + 1\n"
    )
    assert _dtype_of(code) == "bfloat16"


def test_an_allocation_has_the_dtype_its_keyword_names():
    code = "def f(n):\n    t = torch.arange(0, n, 2, dtype=torch.float32)\n    y = t + 1\n"
    assert _dtype_of(code) == "float32"


def test_a_like_allocation_copies_the_dtype_of_its_model_unless_told_otherwise():
    copied = "def f(m):\n    h = m.half()\n    t = torch.zeros_like(h)\n    y = t + 1\n"
    told = "def f(m):\n    h = m.half()\n    t = torch.ones_like(h, dtype=torch.bool)\n    y = t\n"
    new = "def f(m):\n    h = m.bfloat16()\n    t = h.new_zeros((2, 3))\n    y = t + 1\n"
    assert (_dtype_of(copied), _dtype_of(told), _dtype_of(new)) == ("float16", "bool", "bfloat16")


def test_an_allocation_without_a_dtype_has_none_in_the_code():
    assert _dtype_of("def f(n):\n    t = torch.arange(n)\n    y = t + 1\n") is None


def test_arithmetic_with_python_numbers_keeps_a_floating_dtype():
    code = (
        "def f(head_dim: int, base: float, n):\n"
        "    t = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))\n"
        "    y = t.expand(n, -1)\n"
    )
    assert _dtype_of(code) == "float32"


@pytest.mark.parametrize(
    "code",
    [
        # the other operand may be a tensor of another dtype
        "def f(w):\n    t = torch.ones(3, dtype=torch.float16) * w\n    y = t\n",
        # a float scalar promotes an integer tensor to the default dtype: not read
        "def f():\n    t = torch.ones(3, dtype=torch.int64) * 0.5\n    y = t\n",
        # two floating dtypes: the result depends on dims and categories
        "def f():\n    t = torch.ones(3, dtype=torch.float16) + torch.ones(3, dtype=torch.float32)\n"
        "    y = t\n",
    ],
)
def test_arithmetic_that_may_promote_has_no_known_dtype(code):
    assert _dtype_of(code) is None


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**"])
def test_python_numbers_keep_a_floating_dtype_in_torch(dtype, op):
    """The promotion fact `_arithmetic_dtype` relies on, checked against torch itself."""
    torch = pytest.importorskip("torch")
    t = torch.ones(3, dtype=getattr(torch, dtype))
    for left, right in ((t, 3), (t, 2.5), (3, t), (2.5, t), (t, t)):
        assert eval(f"left {op} right").dtype == t.dtype, (left, op, right)


@pytest.mark.parametrize(
    ("move", "dtype"),
    [("h.to(x.device)", "float32"), ('h.to("cuda", non_blocking=True)', "float32"),
     ("h.cuda()", "float32"), ("h.to(device=device)", "float32"), ("h.to(x)", None),
     ("h.to(device, torch.float16)", "float16")],
)  # fmt: skip
def test_a_device_move_keeps_the_dtype(move, dtype):
    code = f"def f(m, x, device):\n    h = m.float()\n    t = {move}\n    y = t + 1\n"
    assert _dtype_of(code) == dtype


@pytest.mark.parametrize(
    "header", ["from einops import repeat, rearrange\n", "import einops\n"]
)
def test_einops_patterns_keep_the_dtype_of_what_they_move(header):
    prefix = "" if header.startswith("from") else "einops."
    code = (
        header + "def f(a_log, n):\n"
        "    a = -torch.exp(a_log.float())\n"
        f"    g = {prefix}rearrange(a, 'h -> h 1')\n"
        f"    t = {prefix}repeat(g, 'h 1 -> h p', p=n)\n"
        "    y = t + 1\n"
    )
    assert _dtype_of(code) == "float32"


def test_a_pattern_of_a_tensor_of_unknown_dtype_has_none():
    code = "from einops import repeat\ndef f(a, n):\n    t = repeat(a, 'h -> h p', p=n)\n    y = t + 1\n"
    assert _dtype_of(code) is None


_STATE_STEP = """
import torch

def step(state, A, dt):
    {body}
    return state * torch.exp(dt * A.float())

def forward(state, A_log, dt, head_dim: int):
    A = {make_a}
    return step(state, A[:, None].expand(-1, head_dim), dt)
"""


def _param_dtype(make_a: str = "-torch.exp(A_log.float())", body: str = "pass",
                 extra: str = "") -> str | None:  # fmt: skip
    """dtype_of the load of `A` in `A.float()` inside `step`."""
    facts = facts_of(_STATE_STEP.format(make_a=make_a, body=body) + extra)
    facts.flows  # the interprocedural rounds fill the parameter dtypes
    load = node(facts, "A.float()", cst.Call).func.value
    return dtypes.dtype_of(facts, load, statement_of(facts, load))


def test_a_parameter_has_the_dtype_its_callers_broadcasts_are_shown_to_have():
    assert _param_dtype() == "float32"


def test_a_caller_of_unknown_dtype_leaves_the_parameter_unknown():
    extra = "\ndef other(state, A, dt, n):\n    return step(state, A.expand(n, -1), dt)\n"
    assert _param_dtype(extra=extra) is None


def test_callers_of_two_dtypes_leave_the_parameter_unknown():
    extra = "\ndef other(state, A, dt, n):\n    return step(state, A.half().expand(n, -1), dt)\n"
    assert _param_dtype(extra=extra) is None


def test_a_parameter_the_function_rebinds_is_unknown():
    assert _param_dtype(body="A = A * 2") is None


def test_a_float32_parameter_cast_to_float_is_no_copy():
    facts = facts_of(_STATE_STEP.format(make_a="-torch.exp(A_log.float())", body="pass"))
    (flow,) = facts.flows_named("step")
    assert flow.sinks == {}
    facts = facts_of(_STATE_STEP.format(make_a="-torch.exp(A_log)", body="pass"))
    (flow,) = facts.flows_named("step")
    assert [facts.text_of(s.node) for s in flow.sinks.values()] == ["A.float()"]


def test_a_dtype_the_tensor_branches_give_is_known_where_the_others_bind_none():
    """`m = None`, then `if c: m = x.half()`: where the load reads a tensor, it is float16."""
    code = (
        "def f(m, n, c):\n    h = None\n    if c:\n        h = m.half()\n"
        "    t = h.expand(n, -1)\n    y = t + 1\n"
    )
    assert _dtype_of(code) == "float16"


@pytest.mark.parametrize(
    ("doc", "dtype"),
    [("``m`` is a boolean key-padding mask.", "bool"),
     ("Args:\n        m (torch.BoolTensor): which keys are kept.", "bool"),
     ("``m`` is an additive float mask, not a boolean one.", None),  # another dtype named
     ("Args:\n        m (Tensor): a bool or float mask.", None),
     ("``n`` is a boolean flag. ``m`` is the mask.", None)],  # another parameter's sentence
)  # fmt: skip
def test_a_parameter_the_docstring_calls_boolean_is_bool(doc, dtype):
    code = f'def f(m, n):\n    """{doc}\n    """\n    t = m.expand(n, -1)\n    y = t + 1\n'
    assert _dtype_of(code) == dtype


@pytest.mark.parametrize(
    ("value", "dtype"),
    [("(x == y).all(-1)", "bool"), ("x.any(dim=1)", "bool"), ("x.amax(-1)", None)],
)
def test_any_and_all_reduce_to_bool_whatever_the_input(value, dtype):
    assert _dtype_of(f"def f(x, y):\n    t = {value}\n    return t\n") == dtype


@pytest.mark.parametrize(
    ("value", "dtype"),
    [("(x > 0) & (y < 1)", "bool"), ("~(x > 0)", "bool"), ("(x > 0) | y", None), ("x & y", None)],
)
def test_bitwise_ops_of_bool_tensors_are_bool(value, dtype):
    assert _dtype_of(f"def f(x, y):\n    t = {value}\n    return t\n") == dtype


# ---- a parameter its function uses as a bool-only mask is bool --------------------------


@pytest.mark.parametrize(
    ("body", "dtype"),
    [("    y = t + 1\n    x.masked_fill(t, 0.0)\n", "bool"),  # an earlier read of it
     ("    y = t + 1\n    t = t.unsqueeze(-1)\n    x = x.masked_fill(~t, 0.0)\n", "bool"),
     ("    y = t + 1\n    x.masked_fill_(t[:, None].expand(-1, 4), 0.0)\n", "bool"),
     ("    y = t + 1\n    torch.masked_select(x, t.to(x.device))\n", "bool"),
     ("    y = t + 1\n    x.masked_scatter(mask=t, source=x)\n", "bool"),
     ("    y = t + 1\n    t = t > 0\n    x.masked_fill(t, 0.0)\n", None),  # another tensor
     ("    y = t + 1\n    t = t.float()\n    x.masked_fill(t.bool(), 0.0)\n", None),
     ("    y = t + 1\n    torch.where(t, x, 0.0)\n", None),  # where takes uint8 still
     ("    y = t + 1\n    x.masked_fill(t.float(), 0.0)\n", None),  # a cast, then (an error)
     ("    y = t + 1\n    def g(t):\n        x.masked_fill(t, 0.0)\n", None)],  # another `t`
)  # fmt: skip
def test_a_parameter_passed_as_a_bool_only_mask_is_bool(body, dtype):
    """masked_fill, masked_scatter and masked_select raise unless their mask is bool."""
    facts = facts_of("import torch\n\ndef f(x, t):\n" + body)
    load = node(facts, "t + 1", cst.BinaryOperation).left
    assert dtypes.dtype_of(facts, load, statement_of(facts, load)) == dtype


def test_a_read_after_a_rebinding_in_a_loop_is_not_the_parameter():
    loop = "    for i in range(3):\n        y = t + 1\n        t = x.sum(0)\n"
    facts = facts_of("def f(x, t):\n    x.masked_fill(t, 0.0)\n" + loop)
    load = node(facts, "t + 1", cst.BinaryOperation).left
    assert dtypes.dtype_of(facts, load, statement_of(facts, load)) is None
    facts = facts_of("def f(x, t):\n    x.masked_fill(t, 0.0)\n" + loop.replace("t = x", "u = x"))
    load = node(facts, "t + 1", cst.BinaryOperation).left
    assert dtypes.dtype_of(facts, load, statement_of(facts, load)) == "bool"


@pytest.mark.parametrize(
    ("value", "dtype"),
    [("torch.cat([a > 0, b > 0], dim=1)", "bool"),
     ("torch.stack((a.half(), b.half()))", "float16"),
     ("torch.cat([a > 0, b.half()])", None),  # mixed: promoted
     ("torch.cat([a > 0, b])", None),  # a part of unknown dtype
     ("torch.cat(parts)", None),
     ("F.pad(a > 0, (0, 1), value=True)", "bool"),
     ("F.pad(a, (0, 1))", None)],
)  # fmt: skip
def test_joins_and_pads_keep_the_dtype_of_their_parts(value, dtype):
    facts = facts_of(
        f"import torch\nimport torch.nn.functional as F\n\ndef f(a, b, parts):\n    t = {value}\n    y = t + 1\n"
    )
    load = node(facts, "t + 1", cst.BinaryOperation).left
    assert dtypes.dtype_of(facts, load, statement_of(facts, load)) == dtype


@pytest.mark.parametrize(
    ("body", "dtype"),
    [("    if c:\n        t = torch.cat([t, u > 0])\n", "bool"),
     ("    if c:\n        t = torch.cat([t, u > 0])\n    else:\n        t = F.pad(t, (0, 1))\n", "bool"),
     ("    if c:\n        t = u.float()\n", None),  # the parameter's bool or a float
     ("    if c:\n        t = torch.cat([t, u])\n", None)],  # u of unknown dtype
)  # fmt: skip
def test_a_branch_that_binds_nothing_reads_the_annotated_parameter(body, dtype):
    facts = facts_of(
        "import torch\nimport torch.nn.functional as F\n\n"
        f'def f(t: bool["b n"], u, c):\n{body}    y = t + 1\n'
    )
    load = node(facts, "t + 1", cst.BinaryOperation).left
    assert dtypes.dtype_of(facts, load, statement_of(facts, load)) == dtype
