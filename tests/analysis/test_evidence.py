"""Parameter evidence read from a function's own text."""

from __future__ import annotations

import textwrap

import libcst as cst

from stridelint.analysis import evidence
from stridelint.analysis.strides import stride_helper
from stridelint.findings import Position


def function(code: str) -> cst.FunctionDef:
    (func,) = [s for s in cst.parse_module(textwrap.dedent(code)).body if isinstance(s, cst.FunctionDef)]
    return func


def nowhere(node: cst.CSTNode) -> Position:
    return Position(1, 1)


def test_bulleted_entry_with_the_phrase_split_over_lines():
    func = function('''
        def reduce(x, mask=None):
            """Reduce.

            Arguments:
                - x: Tensor
                  input.
                - mask: Optional[Tensor]
                  a mask of the same shape as `x` (or
                  broadcastable to it).
            """
    ''')
    assert set(evidence.docstring_evidence(func, nowhere)) == {"mask"}


def test_name_quoted_inside_another_entry_is_not_evidence_for_it():
    func = function('''
        def count(x, mask):
            """Count.

            Args:
                mask (Tensor): a bool mask that may be broadcast over `x`.
            """
    ''')
    assert set(evidence.docstring_evidence(func, nowhere)) == {"mask"}


def test_stride_alias_subscript_compared_with_zero():
    func = function("def f(m):\n    s = m.stride()\n    assert s[0] == 0 or s[1] != 0\n")
    assert set(evidence.stride_check_evidence(func, nowhere)) == {"m"}


def test_helper_strides_compared_in_keyword_flags():
    module = cst.parse_module(textwrap.dedent('''
        def _strides(t):
            return t.stride(0), t.stride(1)
        def launch(mask):
            a, b = _strides(mask)
            kernel[(1,)](mask, FLAG_A=(a == 0), FLAG_B=(b == 0))
    '''))
    helper, caller = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    found = evidence.stride_check_evidence(caller, nowhere, {"_strides": stride_helper(helper)}.get)
    assert set(found) == {"mask"}
    assert not evidence.stride_check_evidence(caller, nowhere)  # without the summary: nothing
