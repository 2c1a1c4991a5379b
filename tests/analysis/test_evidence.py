"""Parameter evidence read from a function's own text."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from stridelint.analysis import evidence
from stridelint.analysis.strides import stride_helper
from stridelint.findings import Evidence, Position
from tests.analysis.parsed import facts_of


def function(code: str) -> cst.FunctionDef:
    (func,) = [s for s in cst.parse_module(textwrap.dedent(code)).body if isinstance(s, cst.FunctionDef)]
    return func


def nowhere(node: cst.CSTNode, message: str) -> Evidence:
    return Evidence(message, Position(1, 1))


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


def test_jaxtyping_broadcast_dims_in_every_spelling():
    func = function('''
        def f(
            a: Bool[Tensor, "#b n"],
            b: Float[Tensor, "b #n"],
            c: Shaped[Tensor, "*#batch n"],
            d: "Bool[Tensor, '#b n']",
            e: Optional[Bool[Tensor, "#b n"]],
            f: Bool[Tensor, "b n"],
            g: "Tensor",
            h: int,
        ):
            pass
    ''')
    assert set(evidence.jaxtyping_evidence(func, nowhere)) == {"a", "b", "c", "d", "e"}


def test_annotation_evidence_names_the_annotated_name():
    annotation = cst.Annotation(cst.parse_expression('Bool[Tensor, "#b n"]'))
    found = evidence.annotation_evidence(annotation, "mask", nowhere)
    assert found is not None and found.message == (
        "the annotation of `mask` marks a dim `#` (broadcastable)"
    )
    plain = cst.Annotation(cst.parse_expression('Bool[Tensor, "b n"]'))
    assert evidence.annotation_evidence(plain, "mask", nowhere) is None


def test_annotated_assignment_with_a_broadcast_dim_is_possibly_broadcast():
    from stridelint.analysis.values import Broadcast, Dense, State
    from tests.analysis.parsed import facts_of, flow_of, node

    facts = facts_of('''
        import torch
        MASK: Bool[Tensor, "#b n"] = load_mask()
        DENSE: Bool[Tensor, "#b n"] = torch.zeros(4, 8)
        def count(x):
            m: "Bool[Tensor, '#b n']" = x.mask
            return (m != 0).sum()
    ''')
    (module_flow,) = facts.flows_named("<module>")
    assert module_flow.env["MASK"].state is State.POSSIBLE
    assert isinstance(module_flow.env["DENSE"], Dense)  # a known value wins over the annotation
    value = flow_of(facts, "count").loads[node(facts, "m", cst.Name, nth=1)]
    assert isinstance(value, Broadcast) and value.state is State.POSSIBLE


@pytest.mark.parametrize(
    "read", ["m.stride(0)", "m . stride(0)", "(m.  # the rows\n     stride(0))", "m.\\\n    stride(0)"]
)
def test_the_module_gate_lets_every_spelling_of_a_stride_read_through(read):
    """ModuleFacts searches for stride comparisons only in a text with a `.stride` attribute."""
    facts = facts_of(f"def f(m):\n    assert {read} == 0\n")
    (func,) = facts.functions
    assert set(facts.parameter_evidence(func)) == {"m"}


def test_the_module_gate_skips_a_text_naming_strides_only_in_kernel_parameters():
    facts = facts_of("def f(m, stride_m):\n    assert stride_m == 0\n")
    assert not facts._mentions_strides


def test_documented_shapes_read_one_shape_per_entry():
    func = function('''
        def forward(viewmats, ks, feats, mask, other):
            """Project.

            Args:
                viewmats: camera view matrices [B, T, 4, 4]
                ks (torch.Tensor): intrinsics of shape (batch, frames, 3, 3)
                feats: features, [B, T, D] or [B, D]
                mask: a padding mask
            """
    ''')
    assert evidence.documented_shapes(func) == {
        "viewmats": ("B", "T", "4", "4"),
        "ks": ("batch", "frames", "3", "3"),
    }


@pytest.mark.parametrize(
    ("doc", "pattern", "small"),
    [("[B, T, 4, 4]", "B T M N -> B (T H W) M N", True),
     ("[B, T, 3, 3]", "B T M N -> B T H M N", True),
     ("[B, T, 8, 8]", "B T M N -> B (T H W) M N", False),  # 64 numbers a token
     ("[B, T, C, D]", "B T M N -> B (T H W) M N", False),  # sizes the docstring does not spell
     ("[B, T, 4]", "B T M -> B (T H W) M", False),  # a vector a token: the data itself
     ("[B, T, 4, 4]", "B T M N -> B (T H W) (M N)", False)],  # the matrix merged
)  # fmt: skip
def test_einops_repeats_of_documented_small_matrices_are_small(doc, pattern, small):
    from stridelint.analysis.values import Broadcast
    from tests.analysis.parsed import flow_of, node

    code = (
        "from einops import repeat\n\n"
        "def f(m, h, w):\n"
        f'    """Repeat.\n\n    Args:\n        m: matrices {doc}\n    """\n'
        f'    return repeat(m, "{pattern}", H=h, W=w)\n'
    )
    facts = facts_of(code)
    flow = flow_of(facts, "f")
    call = node(facts, f'repeat(m, "{pattern}", H=h, W=w)', cst.Call)
    merged = flow.layout_ops.get(call)  # a repeat that merges a new axis copies: a layout op
    value = merged.value if merged is not None else flow.value_of(call)
    assert isinstance(value, Broadcast) and value.small is small


@pytest.mark.parametrize(
    ("annotation", "annotated"),
    [('bool["b n"]', True), ('bool["b n"] | None', True), ('Bool[Tensor, "b n"]', True),
     ('jaxtyping.Bool[torch.Tensor, "b n"]', True), ("Optional[Bool[Tensor, 'b n']]", True),
     ("torch.BoolTensor", True), ("torch.BoolTensor | None", True),
     ('float["b n"]', False), ("torch.Tensor", False), ("bool", False),
     ('bool["b n"] | Float[Tensor, "b n"]', False)],
)  # fmt: skip
def test_a_parameter_annotated_as_a_bool_tensor_is_bool(annotation, annotated):
    func = cst.parse_module(f"def f(mask: {annotation}, x):\n    pass\n").body[0]
    assert evidence.annotated_dtypes(func) == ({"mask": "bool"} if annotated else {})
