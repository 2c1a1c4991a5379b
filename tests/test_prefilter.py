"""The pre-filter keeps every file with a broadcast source and drops files without one.

That it never drops a finding is proven on generated modules and every golden case
(tests/generated); here each trigger is pinned on its own, with its near misses.
"""

from __future__ import annotations

import ast

import pytest

from stridelint.prefilter import may_have_findings


def candidate(source: str, hints: tuple[str, ...] = ()) -> bool:
    return may_have_findings(ast.parse(source), hints)


@pytest.mark.parametrize(
    "source",
    [
        "y = x.expand(4, -1)",
        "y = x.expand_as(z)",
        "y = torch.broadcast_to(x, (4, 8))",
        "from torch import broadcast_to as bt",
        "import torch.broadcast_tensors",
        "a, b = torch.broadcast_tensors(x, y)",
        "y = torch.as_strided(x, (4, 8), (0, 1))",
        "y = torch.empty_strided((4, 8), (0, 1))",
        "from einops import repeat\ny = repeat(x, 'd -> b d', b=4)",  # the module, not `repeat`
        "import einops as E\ny = E.repeat(x, 'd -> b d', b=4)",
        'def f(mask):\n    """mask: BROADCAST over rows."""',
        'def f(mask):\n    ("mask: broad" "castable")',
        'def f(mask):\n    """mask: broad\\x63astable"""',
        'def f(mask: Bool[Tensor, "#b n"]): ...',
        '''def f(mask: "Bool[Tensor, '#b n']"): ...''',
        "def f(mask: Float[Tensor, '*#batch n']): ...",
        "def f(x):\n    mask: \"Bool[Tensor, '#b n']\" = load(x)",
        "if x.stride(0) == 0: pass",
        "if 0 != x.stride()[1]: pass",
        "s = x.stride(1)\nif s == 0: pass",
        "s0, s1 = x.stride()\nok = s1 != 0",
        "s = x.stride()\nassert s[0] == 0",
        "def st(t):\n    return t.stride(0), t.stride(1)\na, b = st(m)\nk[g](m, F=(a == 0))",
    ],
)
def test_broadcast_sources_make_a_candidate(source):
    assert candidate(source)


@pytest.mark.parametrize(
    "source",
    [
        # a Triton kernel: strides everywhere, but never one compared with 0
        "@triton.jit\ndef k(x_ptr, stride_xm, stride_xn):\n"
        "    pid = tl.program_id(0)\n    if pid == 0:\n        x = tl.load(x_ptr + pid * stride_xm)",
        "if x.stride(0) == 1: pass",
        "s = x.size(1)\nif s == 0: pass",
        "# broadcast in a comment is not evidence\ny = x + 1",
        'color = "#ffffff"',
        'def f(mask: Bool[Tensor, "b n"]): ...',
        "y = x.repeat(4, 1).sum()",
        # a call's result compared with 0 where the module never reads a stride
        "def size(t):\n    return t.numel()\nn = size(m)\nif n == 0: pass",
    ],
)
def test_files_without_a_source_are_dropped(source):
    assert not candidate(source)


@pytest.mark.parametrize(
    "source",
    ["def f(bias): ...", "b = args['bias']", "b = self.bias", "from lib import bias"],
)
def test_broadcast_hints_make_a_candidate_only_when_configured(source):
    assert candidate(source, ("bias",))
    assert not candidate(source)


# ---- stage 1 on the text: a file it rules out needs no syntax tree ---------------------------


def text_candidate(source: str, hints: tuple[str, ...] = ()) -> bool:
    from stridelint.prefilter import may_have_findings_text

    return may_have_findings_text(source, hints)


@pytest.mark.parametrize(
    "source",
    [
        "y = x.EXPAND(4, -1)",
        "s = x.stride(0)",
        'doc = """may be Broadcast"""',
        # a word the tree would see but the text does not spell out
        'doc = "broad\\x63ast"',
        "doc = 'broad\\\ncast'",
        'doc = ("broad"  # a comment\n       "cast")',
        'doc = "broad" r"cast"',
        "def f(mask: 'Bool[Tensor, \"#b n\"]'): ...",
        'def f(mask: Bool[Tensor, """\n#b n"""]): ...',
        # NFKC: Python reads this identifier as `expand`
        "y = x.\uff45xpand(4, -1)",
        # ... but not a string: NFKC would make this `broadcas\u1e6b`
        'def f(mask):\n    """mask: broadcast\u0307 over rows."""',
        # a `#` dim made by an escape
        'def f(mask: Bool[Tensor, "\\043b n"]): ...',
        "def f(mask: Bool[Tensor, '\\N{NUMBER SIGN}b n']): ...",
        # the stride attribute however it is written
        "if x.stride(0) == 0: pass",
        "if x. stride(0) == 0: pass",
        "if x.\\\n    stride(0) == 0: pass",
        "if (x.  # the rows\n    stride(0)) == 0: pass",
    ],
)
def test_the_text_screen_keeps_what_may_hold_a_trigger(source):
    assert text_candidate(source)


@pytest.mark.parametrize(
    "source",
    [
        "y = x.repeat(4, 1).sum()  # no # dims here, 'quotes' in a comment",
        'msg = "plain", "strings"\n# a comment with "quotes" and # marks\n',
        'def f(x):\n    """A docstring."""\n    return x + 1\n',
        # escapes that make no letter, digit or `#`; literals joined that spell nothing
        'print("a\\tb\\n", end="\\\\")',
        'msg = ("not a " "dim: b n")',
        # a Triton kernel: strides are its parameters, no stride is read
        "@triton.jit\ndef k(x_ptr, stride_xm, stride_xn):\n    x = tl.load(x_ptr + stride_xm)",
    ],
)
def test_the_text_screen_drops_what_cannot(source):
    assert not text_candidate(source)


def test_the_text_screen_keeps_a_configured_hint():
    assert text_candidate("b = self.bias", ("bias",))
    assert not text_candidate("b = self.bias")


@pytest.mark.parametrize(
    "source",
    [
        "y = x.repeat(4, 1).sum()",
        'msg = "plain", "strings"\n',
        'def f(x):\n    """A docstring."""\n    return x + 1\n',
        "import torch\nn = torch.ones(3).sum()\n",
        'print("a\\tb\\n", end="\\\\")',
        'msg = ("not a " "dim: b n")',
        "@triton.jit\ndef k(x_ptr, stride_xm, stride_xn):\n    x = tl.load(x_ptr + stride_xm)",
    ],
)
def test_what_the_text_screen_drops_the_tree_drops_too(source):
    assert not text_candidate(source) and not candidate(source)
