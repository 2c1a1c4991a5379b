"""Signals that a parameter may receive a stride-0 tensor, read from the function's own text.

Each signal is POSSIBLE evidence (ARCHITECTURE.md): the docstring calls the parameter
broadcast(able); a jaxtyping annotation has a `#` dim (semantics §5); the code compares the
parameter's stride with 0; or the configured `broadcast-hints` name it.
"""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst

from stridelint.analysis.names import dotted
from stridelint.analysis.strides import HelperLookup, stride_aliases, stride_owner
from stridelint.analysis.tree import descendants
from stridelint.findings import Evidence

_BROADCAST_WORD = re.compile(r"broadcast", re.IGNORECASE)
_BROADCAST_DIM = re.compile(r"(^|[\s'\"])[*]?#")  # `#b`, `*#batch`, after a space or quote
_SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool", "complex"})
_BOOL_WORD = re.compile(r"\b(?:bool|boolean|BoolTensor)\b", re.IGNORECASE)
_OTHER_DTYPE_WORD = re.compile(
    r"\b(?:float|additive|bias|int|long|half|FloatTensor|LongTensor|ByteTensor)\b", re.IGNORECASE
)

# Makes the evidence `message` at a node: the analysis reads the node's position only when a
# finding shows it (node_evidence.py), since the first position costs a code generation.
EvidenceAt = Callable[[cst.CSTNode, str], Evidence]


def parameters(func: cst.FunctionDef) -> list[cst.Param]:
    params = func.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def scalar_parameters(func: cst.FunctionDef) -> set[str]:
    """Parameters annotated as Python numbers: they never broadcast a tensor op up in size."""
    names = set()
    for param in parameters(func):
        annotation = param.annotation.annotation if param.annotation else None
        if annotation is not None and dotted(annotation) in _SCALAR_ANNOTATIONS:
            names.add(param.name.value)
    return names


def docstring_evidence(func: cst.FunctionDef, evidence_at: EvidenceAt) -> dict[str, Evidence]:
    """Parameters whose docstring entry mentions broadcasting."""
    docstring = func.get_docstring(clean=True)
    if not docstring:
        return {}
    found = {}
    entries = _docstring_entries(docstring)
    prose = _prose(docstring, entries)
    for param in parameters(func):
        name = param.name.value
        entry = entries.get(name) or _lines_quoting(prose, name)
        if entry and _BROADCAST_WORD.search(entry):
            found[name] = _docstring_says(func, name, evidence_at)
    return found


def documented_dtypes(func: cst.FunctionDef) -> dict[str, str]:
    """Parameters whose docstring entry (or the prose sentences that quote them) says they are
    boolean and names no other dtype: `mask (torch.BoolTensor): ...`, "``mask`` is a boolean
    key-padding mask". The dtype a mask argument must have for a call to convert it in full
    (`torch_ops.BOOL_MASK_ARGUMENTS`) is often shown nowhere else."""
    docstring = func.get_docstring(clean=True)
    if not docstring:
        return {}
    entries = _docstring_entries(docstring)
    sentences = re.split(r"(?<=[.;])\s+", " ".join(_prose(docstring, entries).split()))
    found = {}
    for param in parameters(func):
        name = param.name.value
        entry = entries.get(name) or " ".join(s for s in sentences if _quotes(s, name))
        if entry and _BOOL_WORD.search(entry) and not _OTHER_DTYPE_WORD.search(entry):
            found[name] = "bool"
    return found


def annotated_dtypes(func: cst.FunctionDef) -> dict[str, str]:
    """Parameters annotated as bool tensors, optional or not: jaxtyping's `Bool[Tensor, "b n"]`,
    the shape-string style `bool["b n"]`, `torch.BoolTensor`."""
    found = {}
    for param in parameters(func):
        if param.annotation is not None and _bool_tensor_annotation(param.annotation.annotation):
            found[param.name.value] = "bool"
    return found


def _bool_tensor_annotation(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        sides = [s for s in (node.left, node.right) if dotted(s) != "None"]  # `X | None`
        return len(sides) == 1 and _bool_tensor_annotation(sides[0])
    if isinstance(node, cst.Subscript):
        head = (dotted(node.value) or "").rsplit(".", 1)[-1]
        if head == "Optional" and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            return _bool_tensor_annotation(node.slice[0].slice.value)
        return head in ("bool", "Bool")
    return (dotted(node) or "").rsplit(".", 1)[-1] == "BoolTensor"


# A shape written in a docstring entry: `[B, T, 4, 4]`, `(batch, seq, 3, 3)`.
_SHAPE = re.compile(r"[\[(]\s*((?:[\w*+/-]+\s*,\s*)+[\w*+/-]+)\s*[\])]")


def documented_shapes(func: cst.FunctionDef) -> dict[str, tuple[str, ...]]:
    """Parameters whose docstring entry gives one shape (`viewmats: Camera view matrices
    [B, T, 4, 4]`): its sizes as written. An entry that writes two shapes says neither."""
    docstring = func.get_docstring(clean=True)
    if not docstring:
        return {}
    entries = _docstring_entries(docstring)
    found = {}
    for param in parameters(func):
        shapes = _SHAPE.findall(entries.get(param.name.value, ""))
        if len(shapes) == 1:
            found[param.name.value] = tuple(size.strip() for size in shapes[0].split(","))
    return found


def _docstring_says(func: cst.FunctionDef, name: str, evidence_at: EvidenceAt) -> Evidence:
    where = func.body.body[0] if func.body.body else func
    return evidence_at(where, f"the docstring says `{name}` may be broadcast")


def documented_broadcast_names(func: cst.FunctionDef, evidence_at: EvidenceAt) -> dict[str, Evidence]:
    """Any name (not only parameters) the docstring says may be broadcast: a launch-metadata
    hook documents the entries of its `args` dict this way."""
    docstring = func.get_docstring(clean=True)
    if not docstring:
        return {}
    found = {}
    for name, entry in _docstring_entries(docstring).items():
        if _BROADCAST_WORD.search(entry):
            found[name] = _docstring_says(func, name, evidence_at)
    for quoted in re.findall(r"`{1,2}([A-Za-z_]\w*)`{1,2}", docstring):
        if quoted not in found and _BROADCAST_WORD.search(_lines_quoting(docstring, quoted)):
            found[quoted] = _docstring_says(func, quoted, evidence_at)
    return found


def _prose(docstring: str, entries: dict[str, str]) -> str:
    """The docstring without its documented entries: a name quoted inside another name's
    entry (`mask: broadcast over `x``) says nothing about that name."""
    entry_text = " ".join(entries.values())
    return "\n".join(
        line for line in docstring.splitlines() if not line.strip() or line.strip() not in entry_text
    )


def _lines_quoting(docstring: str, name: str) -> str:
    """Prose lines that quote the name in backticks, for docstrings without a parameter list."""
    return " ".join(line for line in docstring.splitlines() if _quotes(line, name))


def _quotes(text: str, name: str) -> bool:
    return f"`{name}`" in text or f"``{name}``" in text


def _docstring_entries(docstring: str) -> dict[str, str]:
    """Map each documented name to its entry text (Google, NumPy, Sphinx and plain styles)."""
    entries: dict[str, str] = {}
    current: str | None = None
    indent = 0
    # An optional list bullet (`- mask: ...`, `* mask (Tensor): ...`), then the name.
    header = re.compile(
        r"^\s*(?:[-*+\u2022]\s+)?(?::param\s+)?`{0,2}(\*{0,2}\w+)`{0,2}\s*(?:\(|:|--|-\s)"
    )
    for line in docstring.splitlines():
        match = header.match(line)
        line_indent = len(line) - len(line.lstrip())
        if match:
            current = match.group(1).lstrip("*")
            indent = line_indent
            entries[current] = entries.get(current, "") + line
        elif current is not None and line.strip() and line_indent > indent:
            entries[current] += " " + line.strip()
        else:
            current = None
    return entries


def jaxtyping_evidence(func: cst.FunctionDef, evidence_at: EvidenceAt) -> dict[str, Evidence]:
    """Parameters annotated like `Bool[Tensor, "#b n"]`: a `#` dim may be broadcast."""
    found = {}
    for param in parameters(func):
        if param.annotation is None:
            continue
        item = annotation_evidence(param.annotation, param.name.value, evidence_at)
        if item is not None:
            found[param.name.value] = item
    return found


def annotation_evidence(
    annotation: cst.Annotation, name: str, evidence_at: EvidenceAt
) -> Evidence | None:
    """A jaxtyping shape with a `#` dim (`Bool[Tensor, "#b n"]`, `"*#batch n"`), also inside
    a string annotation (`"Bool[Tensor, '#b n']"`): the dim may be broadcast (semantics §5)."""
    if dotted(annotation.annotation) is not None:
        return None  # `Tensor`, `torch.Tensor`: names alone, no string to walk to
    for string in descendants(annotation, cst.SimpleString):
        value = string.evaluated_value
        if isinstance(value, str) and _BROADCAST_DIM.search(value):
            return evidence_at(annotation, f"the annotation of `{name}` marks a dim `#` (broadcastable)")
    return None


def stride_check_evidence(
    func: cst.FunctionDef, evidence_at: EvidenceAt, helper_of: HelperLookup | None = None
) -> dict[str, Evidence]:
    """Tensors whose strides the code compares with 0 anywhere in the body (`assert`, `if`,
    a keyword flag `BROADCAST=(s == 0)`): `x.stride(d) == 0`, `s[0] == 0`, `s_r == 0` for
    names bound to strides directly or by a stride helper (strides.py)."""
    compared = []  # (comparison, the side compared with 0)
    for comparison in descendants(func.body, cst.Comparison):
        if len(comparison.comparisons) != 1:
            continue
        target = comparison.comparisons[0]
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            continue
        left, right = comparison.left, target.comparator
        if _is_zero(right):
            compared.append((comparison, left))
        elif _is_zero(left):
            compared.append((comparison, right))
    if not compared:
        return {}  # most functions: no second walk for the names bound to strides
    aliases = stride_aliases(func, helper_of)
    found = {}
    for comparison, side in compared:
        tensor = stride_owner(side, aliases)
        if tensor and tensor not in found:
            found[tensor] = evidence_at(
                comparison, f"the code checks whether a stride of `{tensor}` is 0"
            )
    return found


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0
