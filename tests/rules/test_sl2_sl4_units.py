"""SL201, SL301 and SL401 one behaviour at a time; SL401's claims checked against torch."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import libcst as cst
import pytest

from stridelint.analysis.module import ModuleFacts
from stridelint.config import Config
from stridelint.engine import fix_text, lint_text
from stridelint.findings import Applicability
from stridelint.rules import sl401_write_into_broadcast as sl401
from stridelint.source import decode
from stridelint.analysis import provenance, uses


def _findings(code: str, rule: str):
    source = decode(textwrap.dedent(code).encode())
    config = Config(root=Path.cwd(), source=None)
    return [f for f in lint_text(source, config, None).findings if f.code == rule]


def _fixed(code: str, *, unsafe: bool) -> str:
    source = decode(textwrap.dedent(code).encode())
    return fix_text(source, Config(root=Path.cwd(), source=None), None, unsafe).text


def _facts(code: str) -> ModuleFacts:
    source = decode(textwrap.dedent(code).encode())
    return ModuleFacts(cst.parse_module(source.text), source)


# ---- SL201 --------------------------------------------------------------------------------


def test_sl201_cast_read_by_an_elementwise_op_is_a_safe_hoist():
    code = """
    def f(x, n, scores):
        e = x[None, :].expand(n, -1).float()
        return scores + e
    """
    [finding] = _findings(code, "SL201")
    assert finding.fix.applicability is Applicability.SAFE
    assert "e = x[None, :].float().expand(n, -1)" in _fixed(code, unsafe=False)


def test_sl201_result_returned_is_an_unsafe_hoist():
    code = """
    def f(x, n):
        return x.expand(n, -1) * 2
    """
    [finding] = _findings(code, "SL201")
    assert finding.fix.applicability is Applicability.UNSAFE
    assert "return (x * 2).expand(n, -1)" in _fixed(code, unsafe=True)


def test_sl201_transcendental_op_is_an_unsafe_hoist_even_when_only_read():
    code = """
    def f(x, n, y):
        return y + x.expand(n, -1).exp()
    """
    [finding] = _findings(code, "SL201")
    assert finding.fix.applicability is Applicability.UNSAFE


def test_sl201_not_reported_when_the_result_is_written_in_place():
    code = """
    def f(x, n):
        e = x.expand(n, -1).float()
        e.add_(1)
        return e
    """
    assert _findings(code, "SL201") == []


def test_sl201_not_reported_for_a_same_dtype_cast():
    code = """
    import torch

    def f(x, n):
        e = x.float().expand(n, -1)
        return e.to(torch.float32) + 1
    """
    # A same-dtype `.to` returns the tensor itself (semantics §1.1): not a sink. The `+ 1`
    # after it is what materializes the broadcast, and that is reported.
    (finding,) = _findings(code, "SL201")
    assert finding.message.startswith("`… + 1` materializes the broadcast `e.to(torch.float32)`")


def test_sl201_not_reported_when_reduced_sl101_is():
    code = """
    def f(x, n):
        return (x.expand(n, -1) * 2).sum()
    """
    assert _findings(code, "SL201") == []
    assert len(_findings(code, "SL101")) == 1


def test_sl201_one_argument_where_lists_indices_and_is_not_elementwise():
    code = """
    import torch

    def f(x, n):
        return torch.where(x.expand(n, -1))
    """
    assert _findings(code, "SL201") == []


def test_sl201_no_fix_when_a_name_of_the_pre_expand_expression_is_written_in_between():
    code = """
    def f(x, n):
        e = x[None, :].expand(n, -1)
        x.mul_(2)
        return 1.0 - e
    """
    [finding] = _findings(code, "SL201")
    assert finding.fix is None


def test_sl201_no_fix_in_a_loop_that_rebinds_the_pre_expand_name_after_the_op():
    code = """
    def f(x, n, k):
        e = x[None, :].expand(n, -1)
        for _ in range(k):
            y = 1.0 - e
            x = x * 2
        return y
    """
    [finding] = _findings(code, "SL201")
    assert finding.fix is None


def test_sl201_strided_kernel_launch_is_a_read():
    code = """
    import triton

    @triton.jit
    def k(X, s0, s1):
        pass

    def f(x, n):
        e = x[None, :].expand(n, -1).half()
        k[(n,)](e, *e.stride())
    """
    [finding] = _findings(code, "SL201")
    assert finding.fix.applicability is Applicability.SAFE


def test_sl201_kernel_without_strides_needs_the_dense_result():
    code = """
    import triton

    @triton.jit
    def k(X):
        pass

    def f(x, n):
        e = x[None, :].expand(n, -1).half()
        k[(n,)](e)
    """
    assert _findings(code, "SL201") == []


# ---- uses ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("use", "kind"),
    [
        ("return t", uses.OPAQUE),
        ("self.t = t", uses.OPAQUE),
        ("out = [t]", uses.OPAQUE),
        ("g(t)", uses.OPAQUE),
        ("t.data_ptr()", uses.OPAQUE),
        ("t.view(-1)", uses.DENSE),
        ("t[0] = 1", uses.DENSE),
        ("t += 1", uses.DENSE),
        ("y = t.sum()", uses.READ),
        ("y = u.masked_fill(t, 0.0)", uses.READ),
        ("y = torch.cat([t, u])", uses.READ),
        ("y = t.transpose(0, 1) * 2", uses.READ),
    ],
)
def test_uses_are_classified(use, kind):
    facts = _facts(f"""
    import torch

    def f(x, n, u):
        t = x.expand(n, -1) + 1
        {use}
    """)  # fmt: skip
    flow = next(iter(facts.flows.values()))
    sink = next(iter(flow.sinks.values()))
    assert [u.kind for u in uses.uses_of(facts, flow, sink.node)] == [kind]


# ---- SL301 --------------------------------------------------------------------------------

_KERNEL = """
import torch
import triton

@triton.jit
def k(X, s0, s1):
    pass
"""


@pytest.mark.parametrize(
    ("reshape", "reported"),
    [
        ("k[:, :, None].expand(b, h, g, s, d).reshape(b, h * g, s, d)", True),
        ("k[:, :, None].expand(b, h, g, s, d).reshape(b, h, g * s, d)", True),
        ("k[:, :, None].expand(b, h, g, s, d).reshape(b, h, g, s * d)", False),
        ("k[:, None, None].expand(b, g, g2, s).reshape(b, g * g2, s)", False),
        ("k[:, :, None].expand(b, h, g, s, d).flatten(1, 2)", True),
        ("k[:, :, None].expand(b, h, g, s, d).flatten(3)", False),
        ("k.expand(b, -1).flatten()", True),
        ("k.expand(1, n).flatten()", False),
        ("k.expand(b, h).reshape(b * h)", True),  # one size that is a number: a flatten
        ("k.expand(b, h).reshape(shape)", False),  # one name: may be a whole shape
    ],
)
def test_sl301_reshape_reported_when_it_merges_a_stride0_dim(reshape, reported):
    code = _KERNEL + f"""
def f(k, b, h, g, g2, s, d, n):
    t = {reshape}
    k[(1,)](t, *t.stride())
"""
    assert bool(_findings(code, "SL301")) is reported


def test_sl301_clone_then_written_is_needed():
    code = """
    def f(row, n):
        buf = row[None, :].expand(n, -1).clone()
        buf[0] = 0
        return buf
    """
    assert _findings(code, "SL301") == []
    assert _findings(code, "SL401") == []


def test_sl301_self_assigned_contiguous_is_removed_with_its_line():
    code = _KERNEL + """
def f(x, n):
    x = x[None].expand(n, -1)
    x = x.contiguous()
    k[(n,)](x, *x.stride())
"""
    fixed = _fixed(code, unsafe=True)
    assert "contiguous" not in fixed and "x = x\n" not in fixed


def test_sl301_empty_like_is_never_reported():
    code = """
    import torch

    def f(x, n, y):
        out = torch.empty_like(x.expand(n, -1))
        return y + out
    """
    assert _findings(code, "SL301") == []


# ---- expanded dims ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expand", "broadcast", "kept"),
    [
        ("m[:, None, None, :].expand(b, h, t, s)", {1, 2}, {0, 3}),
        ("m[:, None, None, :].expand(b, 1, t, s)", {2}, {0, 3}),
        ("m[..., None].expand(b, s, n)", {2}, {0, 1}),
        ("m[:, None].expand(b, n, s)", {1}, {0, 2}),
        ("m[:, :, None].expand(b, h, g, s, d)", {2}, {0, 1, 3, 4}),
        ("m.unsqueeze(1).expand(b, n, s)", {1}, set()),
        ("m.expand(n, -1)", {0}, {1}),
        ("m.expand(n, s)", set(), set()),
    ],
)
def test_expanded_dims_are_read_from_the_code(expand, broadcast, kept):
    facts = _facts(f"x = {expand}\n")
    call = facts.module.body[0].body[0].value
    dims = provenance.expanded_dims(facts, call)
    assert (set(dims.broadcast), set(dims.kept)) == (broadcast, kept)


# ---- SL401: every claim against torch -----------------------------------------------------


def _observed(statement: str) -> str:
    torch = pytest.importorskip("torch")
    row = torch.arange(4.0)
    scope = {"torch": torch, "e": row[None, :].expand(3, -1), "c": row[:, None].expand(-1, 3)}
    before = row.clone()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(statement, scope)
        except RuntimeError as error:
            assert "single memory location" in str(error)
            return "raises"
    if any("expanded tensors is deprecated" in str(w.message) for w in caught):
        return "warns"
    if "out" in scope and not torch.equal(scope["out"], scope["expected"]):
        return "wrong"
    assert not torch.equal(row, before), "the write should have reached the shared row"
    return "silent"


_REDUCE_INTO = "x = torch.arange(12.0).reshape(3, 4); out = torch.zeros(1).expand(3); "
_CLAIMS = {
    sl401.RAISES: "raises",
    sl401.SILENT: "silent",
    sl401.WARNS: "warns",
    sl401.WRONG: "wrong",
}


@pytest.mark.parametrize(
    "statement",
    [
        "e.add_(1)",
        "e.mul_(2)",
        "e.clamp_(min=1)",
        "e.copy_(torch.zeros(3, 4))",
        "e.uniform_()",
        "e.exp_()",
        "e.index_add_(1, torch.tensor([0]), torch.ones(3, 1))",
        "e.zero_()",
        "e.fill_(5.0)",
        "e.masked_fill_(torch.ones(3, 4, dtype=torch.bool), 0.0)",
        "e.index_fill_(1, torch.tensor([0]), 0.0)",
        "e.index_put_((torch.tensor([0]),), torch.tensor(9.0))",
        "e += 1",
        "e[...] = 0.0",
        "e[:] = 0.0",
        "e[:, 0] = 1.0",
        "e[0] = torch.ones(4)",
        "e[0, 1] = 7.0",
        "c[:, 0] = 2.0",
        "c[0] = 3.0",
        "e[torch.tensor([0, 1])] = 0.0",
        "torch.add(torch.ones(3, 4), 1, out=e)",
        "out = torch.zeros(1).expand(3); torch.mean(torch.ones(3, 4), 1, out=out)",
        _REDUCE_INTO + "expected = x.sum(1); torch.sum(x, 1, out=out)",
        _REDUCE_INTO + "expected = x.amax(1); torch.amax(x, 1, out=out)",
        _REDUCE_INTO + "expected = x @ torch.ones(4); torch.matmul(x, torch.ones(4), out=out)",
    ],
)
def test_sl401_says_what_torch_does(statement):
    code = f"""
    import torch

    def f(row):
        e = row[None, :].expand(3, -1)
        c = row[:, None].expand(-1, 3)
        {statement}
    """
    findings = _findings(code, "SL401")
    assert findings, "no finding"
    claims = [name for text, name in _CLAIMS.items() if text in findings[-1].message]
    assert claims == [_observed(statement)], findings[-1].message


_RESHAPING = {"unsqueeze_": (0,), "squeeze_": (), "t_": (), "transpose_": (0, 1),
              "swapdims_": (0, 1), "swapaxes_": (0, 1), "as_strided_": ((3, 4), (0, 1)),
              "resize_": (2, 2)}  # fmt: skip


@pytest.mark.parametrize("method", sorted(_RESHAPING))
def test_sl401_metadata_methods_do_not_write(method):
    torch = pytest.importorskip("torch")
    row = torch.arange(4.0)
    e = row[None, :].expand(3, -1)
    assert method in sl401.METADATA_METHODS
    getattr(e, method)(*_RESHAPING[method])
    assert torch.equal(row, torch.arange(4.0))


def test_sl401_not_reported_for_a_clone():
    code = """
    def f(row, n):
        buf = row[None, :].expand(n, -1).clone()
        buf.add_(1)
        buf += 1
        return buf
    """
    assert _findings(code, "SL401") == []


def test_sl401_out_keyword_of_dict_is_not_a_write():
    code = """
    def f(row, n):
        x = row[None, :].expand(n, -1)
        return dict(out=x)
    """
    assert _findings(code, "SL401") == []


def test_sl201_no_fix_where_a_comprehension_rebinds_a_pre_expand_name():
    code = """
    def f(x, n, xs):
        e = x[None].expand(n, -1)
        return [1.0 - e for x in xs]
    """
    [finding] = _findings(code, "SL201")
    assert finding.fix is None
