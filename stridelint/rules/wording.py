"""How a finding's message names what it is about: the op, and the tensor it works on, each
once; which dims of that tensor are broadcast; how large its logical size is.

A message is one sentence a reader acts on. Why the tensor is broadcast is the finding's
evidence (shown by `full`, JSON, SARIF), never repeated in the message.
"""

from __future__ import annotations

import re
from math import prod
from typing import TYPE_CHECKING, Collection, Sequence

from stridelint.analysis.one_line import one_line
from stridelint.analysis.values import Broadcast, State

if TYPE_CHECKING:
    import libcst as cst

    from stridelint.analysis.dataflow import LayoutOp
    from stridelint.analysis.module import ModuleFacts

ELLIPSIS = "…"
SNIPPET_LIMIT = 48
# An operand that is not a short name (`m`, `self.mask`, `args["Mask"]`) is shown once, as
# the tensor; the op around it shows it as `…` (`.float()` of `x[None].expand(8, -1, -1)`,
# not the expand twice).
SHORT_OPERAND = 16
_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


# ---- pieces that need no source ---------------------------------------------------------


def dims_phrase(broadcast: Collection[int], candidates: Collection[int]) -> str:
    """` over dim 0`, ` over dims 0, 2`, ` over some of dims 0, 1` (the expand may make any of
    them stride 0, the code does not say which), or nothing when nothing is known."""
    if broadcast:
        return f" over {_dims(broadcast)}"
    if candidates:
        return f" over some of {_dims(candidates)}"
    return ""


def _dims(dims: Collection[int]) -> str:
    ordered = sorted(dims)
    return f"dim{'s' if len(ordered) > 1 else ''} {', '.join(str(d) for d in ordered)}"


def size_phrase(sizes: Sequence[str], unit: Collection[int], itemsize: int | None) -> str:
    """The logical size in the code's own terms: ` (65536×4×8192 → 2 GiB)` when every size is
    a literal integer and the bytes per element are known, else ` (b × h × s elements)`;
    nothing when a size is not in the code (`-1`, `*shape`) or the one size is all there is
    to say. Dims expanded to size 1 are left out."""
    if any(size.strip() == "-1" or "*" in size for size in sizes):
        return ""
    shown = [size.strip() for index, size in enumerate(sizes) if index not in unit]
    if not shown:
        return ""
    literal = [_literal(size) for size in shown]
    if all(n is not None for n in literal):
        product = "×".join(shown)
        if itemsize is not None:
            return f" ({product} → {byte_size(prod(literal) * itemsize)})"  # type: ignore[arg-type]
        return f" ({product} elements)" if len(shown) > 1 else ""
    if len(shown) == 1:
        return ""
    terms = [f"({size})" if any(op in size for op in " +-/%") else size for size in shown]
    return f" ({' × '.join(terms)} elements)"


def _literal(size: str) -> int | None:
    try:
        return int(size)
    except ValueError:
        return None


def byte_size(count: int) -> str:
    """`512 B`, `256 KiB`, `1.5 GiB`: binary units, three significant digits at most."""
    value = float(count)
    unit = 0
    while value >= 1024 and unit < len(_BYTE_UNITS) - 1:
        value /= 1024
        unit += 1
    if value == int(value):
        number = str(int(value))
    elif value < 10:
        number = f"{value:.1f}".rstrip("0").rstrip(".")
    else:
        number = f"{value:.0f}"
    return f"{number} {_BYTE_UNITS[unit]}"


def expand_site(value: Broadcast) -> str:
    """` (line N)` naming where the expand that made `value` stands, when it is not in the
    function reporting it (a caller passed it, a callee returned it); else nothing."""
    from stridelint.analysis.dataflow import MAKES_A_STRIDE_0_VIEW  # the analysis imports LibCST

    if value.local:
        return ""
    made = [e for e in value.evidence if e.message.endswith(MAKES_A_STRIDE_0_VIEW)]
    return f" (line {made[-1].position.row})" if made else ""


def certainty(value: Broadcast) -> str:
    return "broadcast" if value.state is State.DEFINITE else "possibly broadcast"


def named(tensor: str, certain: str, details: str) -> str:
    """The tensor, named once: `` `m`, broadcast over dim 0 (rows × n elements)`` when there is
    something to say about its dims or size, else `` the broadcast `m` ``."""
    if details:
        return f"`{tensor}`, {certain}{details}"
    return f"the {certain} `{tensor}`"


# ---- pieces read from the code ----------------------------------------------------------


def tensor(
    facts: ModuleFacts,
    operand: cst.BaseExpression,
    statement: cst.CSTNode | None,
    value: Broadcast,
    dtype_of: cst.BaseExpression | None = None,
    *,
    size: bool = True,
) -> str:
    """The broadcast `operand`, named once with which dims the expand that made it broadcasts
    and (with `size`) its logical size; in bytes when the sizes are literal and the dtype of
    `dtype_of` (the materialized result; the operand by default) is in the code."""
    from stridelint.analysis import dtypes, provenance  # the analysis imports LibCST

    dims = provenance.dims_of(facts, operand, statement)
    details = ""
    if dims is not None:
        details = dims_phrase(dims.broadcast, dims.candidates)
        if size:
            dtype = dtypes.dtype_of(facts, dtype_of if dtype_of is not None else operand, statement)
            details += size_phrase(dims.sizes, dims.unit, dtypes.itemsize(dtype))
    return named(facts.snippet(operand, SNIPPET_LIMIT), certainty(value), details)


def layout_tensor(facts: ModuleFacts, op: LayoutOp) -> str:
    """What a layout op copies: its broadcast operand (`tensor`), or for an `einops.repeat`,
    whose operand is not broadcast itself, that operand repeated along the merged axis."""
    if op.name == "repeat":
        return f"`{facts.snippet(op.operand, SNIPPET_LIMIT)}` repeated along it"
    return tensor(facts, op.operand, op.statement, op.value)


def op(facts: ModuleFacts, node: cst.CSTNode, operand: cst.CSTNode) -> str:
    """The op's code, with an `operand` inside it that is not a short name shown as `…` (the
    message names the operand on its own): `.float()`, `… != 0`, `torch.where(…, x, 0.0)`."""
    import libcst as cst

    short = len(" ".join(facts.text_of(operand).split())) <= SHORT_OPERAND
    if short and isinstance(operand, (cst.Name, cst.Attribute, cst.Subscript)):
        return facts.snippet(node, SNIPPET_LIMIT)
    return around(facts, node, operand)


def around(facts: ModuleFacts, node: cst.CSTNode, inner: cst.CSTNode) -> str:
    """`node`'s code with `inner` (a part of it) shown as `…`, and a method call on it shown as
    the method alone (`.sum(dim=-1)`); `node`'s plain snippet when `inner` is not inside it."""
    start, end = facts.span(node)
    inner_start, inner_end = facts.span(inner)
    if not (start <= inner_start and inner_end <= end) or (start, end) == (inner_start, inner_end):
        return facts.snippet(node, SNIPPET_LIMIT)
    text = facts.source.text
    shown = one_line(text[start:inner_start] + ELLIPSIS + text[inner_end:end])
    method = re.fullmatch(rf"(\(*){ELLIPSIS}(\)*)(\..*)", shown)  # `(…).sum(dim)`
    if method is not None and len(method.group(1)) == len(method.group(2)):
        shown = method.group(3)
    return shown if len(shown) <= SNIPPET_LIMIT else shown[: SNIPPET_LIMIT - 3] + "..."
