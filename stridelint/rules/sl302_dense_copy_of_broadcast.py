"""SL302: a broadcast tensor is copied to its full logical size and kept dense."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from stridelint.findings import Finding
from stridelint.lazy import lazy_import
from stridelint.rules import common, wording
from stridelint.rules.base import Rule

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import FunctionFlow, LayoutOp
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.uses import Use
    from stridelint.context import RuleContext

cst = lazy_import("libcst")
literals = lazy_import("stridelint.analysis.literals")
per_token = lazy_import("stridelint.analysis.per_token")
reshapes = lazy_import("stridelint.analysis.reshapes")
uses = lazy_import("stridelint.analysis.uses")

_COPIES = ("contiguous", "clone")
_HINT = "let the consumer read its strides"
_LOW = "such a copy is usually wanted dense"


class DenseCopyOfBroadcast(Rule):
    """
    ## What it does
    Finds `.contiguous()` or `.clone()` of a tensor that is, or may be, a broadcast
    (stride-0) view, and a `reshape`/`flatten` that merges its stride-0 dim with another
    (which copies), when the dense copy is then kept for a consumer the wrapper controls: a
    kernel launched without the copy's strides (by the wrapper itself, or by a function of the
    module it passes the copy to, such as a `_launch(x, out)` helper), or a `.view` of it.
    The typical place is a kernel wrapper:
    `scale.expand(num_experts, hidden).contiguous()` right before a launch.

    ## Why is this bad?
    The copy allocates the tensor's full logical size (semantics doc §1.1) to hold values
    that its storage already holds once: a mask broadcast over a 8192-wide dim costs 8192
    times its storage. The consumer keeps the copy, so it cannot simply be dropped (that is
    SL301, for copies no use needs); the cost goes away when the consumer learns to read
    strides: a Triton kernel that takes `stride_m0` and is launched with `*m.stride()`
    reads a stride-0 dim for free.

    A tensor expanded to one dim only (a 0-d scale expanded to the number of experts) is
    not reported: its copy is as small as that dim. A possibly broadcast parameter is
    reported only in kernel-wrapper scope. Two kinds of kept copies are low severity, reported
    only with `low-severity = true`, because on real libraries such reports were mostly
    noise: a copy the code then writes into (a buffer initialised from a broadcast), an
    explicit `.contiguous()` or `.clone()` that only escapes to code the linter cannot see
    (returned, stored, passed to a function that does not launch it without its strides, or
    to one the linter cannot read; also flattened first, as
    `.contiguous().view(-1)`, the flat buffer a library's packed-mask argument takes), whose
    author asked for a dense tensor,
    and a merging reshape whose copy is only stored (in a container, or into another tensor).

    ## Example
    ```python
    def scaled(x, scale):
        s = scale[None, :].expand(x.shape[0], -1).contiguous()
        out = torch.empty_like(x)
        _scale_kernel[(x.shape[0],)](x, s, out, x.shape[1], BLOCK=1024)
        return out
    ```

    ## Use instead
    ```python
    def scaled(x, scale):
        s = scale[None, :].expand(x.shape[0], -1)
        out = torch.empty_like(x)
        _scale_kernel[(x.shape[0],)](x, s, out, x.shape[1], *s.stride(), BLOCK=1024)
        return out
    ```
    with the kernel indexing `s` through the strides it is given. When the consumer is a
    module the code holds, run on one row a sample copied per token
    (`self.time_modulation(t_emb[:, None].expand(b, n, -1).reshape(b * n, -1))`), the message
    says so: run the module on the rows before the expand, then expand its result. When the
    consumer must have a dense tensor (a library kernel, a buffer that is written later), the
    copy is the price: keep it and suppress the finding with `# noqa: SL302`.

    ## Fix safety
    There is no fix: removing the copy is only right once the consumer honours strides,
    which the linter cannot change.
    """

    code = "SL302"
    name = "dense-copy-of-broadcast"
    summary = "Copy materializes a broadcast tensor at full size and keeps it dense"
    fix_availability = "none"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        facts = ctx.facts
        for flow in facts.flows.values():
            for sink in flow.sinks.values():
                if sink.kind != "copy" or sink.reductions:
                    continue  # a reduced copy is SL101's
                func = sink.node.func
                method = func.attr.value if isinstance(func, cst.Attribute) else None
                if method not in _COPIES:
                    continue
                value = common.strongest(v for _, v in sink.operands)
                if not common.reported(facts, flow, value, ctx.scope):
                    continue
                kept = _keeper(uses.uses_of(facts, flow, sink.node), explicit=True)
                if kept is None:
                    continue  # read through its strides (SL301's), or filled in place
                keeper, low = kept
                low = low or _view_only_escapes(facts, flow, keeper)
                operand = sink.operands[0][0]
                tensor = wording.tensor(facts, operand, sink.statement, value)
                message = (
                    f"`{wording.op(facts, sink.node, operand)}` copies {tensor}, kept dense "
                    f"as {keeper.why}: {_HINT}"
                )
                yield common.finding(
                    self.code, facts, sink.node, sink.statement, message, value,
                    low=_LOW if low else None,
                )
            for op in flow.layout_ops.values():
                if op.name.endswith("_like") or not common.reported(facts, flow, op.value, ctx.scope):
                    continue
                merged = reshapes.merge_of(facts, op)
                kept = _keeper(uses.uses_of(facts, flow, op.call), explicit=False) if merged else None
                if kept is None:
                    continue  # a view, read through its strides (SL301's), or filled in place
                keeper, low = kept
                tensor = wording.layout_tensor(facts, op)
                message = (
                    f"`{wording.op(facts, op.call, op.operand)}` {merged}, copying {tensor}, "
                    f"kept dense as {keeper.why}: {_hint(flow, op, keeper)}"
                )
                yield common.finding(
                    self.code, facts, op.call, op.statement, message, op.value,
                    low=_LOW if low else None,
                )


def _hint(flow: FunctionFlow, op: LayoutOp, keeper: Use) -> str:
    """What to do about the copy. A module given rows copied per token cannot read strides,
    but it can run on the rows before the expand (SL201's module runs)."""
    call = keeper.node
    if op.value.per_token and isinstance(call, cst.Call) and per_token.runs_a_held_module(
        flow, call
    ):
        return (
            f"`{flow.facts.snippet(call.func, wording.SNIPPET_LIMIT)}` runs on its repeated "
            "rows: run it before the expand, then expand its result"
        )
    return _HINT


def _view_only_escapes(facts: ModuleFacts, flow: FunctionFlow, keeper: Use) -> bool:
    """Whether the `.view(-1)` that keeps an explicit copy dense only hands its result on.
    `t.contiguous().view(-1)` spells the flat dense buffer its author wants; where the view
    goes decides, as for the copy itself: returned, stored or passed to another function
    (a library's packed-mask argument), the unseen consumer usually needs that layout. A view
    to other dims (heads merged for attention) is a layout the code chose: a full finding."""
    if keeper.need != uses.VIEW or not _flattens(keeper.node):
        return False
    seen = [u for u in uses.uses_of(facts, flow, keeper.node) if u.need != uses.IDENTITY]
    return bool(seen) and all(u.kind == uses.OPAQUE for u in seen)


def _flattens(node: cst.CSTNode) -> bool:
    """`.view(-1)`: one dim of every element."""
    return (
        isinstance(node, cst.Call) and len(node.args) == 1 and node.args[0].keyword is None
        and literals.literal_int(node.args[0].value) == -1
    )  # fmt: skip


def _keeper(result_uses: list[Use], *, explicit: bool) -> tuple[Use, bool] | None:
    """The use that keeps the copy dense, and whether the finding is low severity; None when
    no use keeps it (SL301's).

    A copy the code fills in place is a buffer initialised from a broadcast (a canvas, a mask
    edited per row): usually needed, low severity. An `explicit` copy (`.contiguous()`,
    `.clone()`) says its author wants a dense tensor: a full finding when a consumer the
    wrapper controls needs it dense (a kernel launched without its strides, a `.view`); when
    it only escapes (returned, stored, passed on), the consumer we cannot see usually needs it
    dense, and on real libraries those reports were mostly noise: low severity. A reshape
    that merges a stride-0 dim copies implicitly: a full finding, unless the copy is only
    stored (in a container, or written into another tensor): its reader is out of sight, and
    on real libraries every such report was the layout that reader wanted (low severity)."""
    keepers = [
        u for u in result_uses if u.kind in (uses.DENSE, uses.OPAQUE) or u.need == uses.RESHAPE
    ]
    if not keepers:
        return None
    written = next((u for u in keepers if u.need == uses.WRITE), None)
    if written is not None:
        return written, True
    if all(u.need == uses.STORED for u in keepers):
        return keepers[0], True
    controlled = next(
        (u for u in keepers if u.need in (uses.LAUNCH, uses.VIEW, uses.RESHAPE)), None
    )
    if controlled is not None:
        return controlled, False
    return keepers[0], explicit
