"""SL301: a copy turns a broadcast tensor into a full-size one that no use needs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from stridelint.findings import Applicability, Finding, Fix
from stridelint.lazy import lazy_import
from stridelint.rules import common, wording
from stridelint.rules.base import Rule

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import FunctionFlow, LayoutOp
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.uses import Use
    from stridelint.context import RuleContext

cst = lazy_import("libcst")
provenance = lazy_import("stridelint.analysis.provenance")
reshapes = lazy_import("stridelint.analysis.reshapes")
purity = lazy_import("stridelint.analysis.purity")
uses = lazy_import("stridelint.analysis.uses")
hoist = lazy_import("stridelint.transforms.hoist")

# `*_like` results that hold one value everywhere, so a stride-0 one is the same tensor
# (`empty_like`'s contents are undefined until written; `rand_like` draws every element).
_CONSTANT_LIKE = frozenset({"zeros_like", "ones_like", "full_like"})
_UNSAFE = (
    "unsafe: the tensor stays a stride-0 view of its base, so a later in-place write to the "
    "base shows through and anything that relies on a dense layout sees stride 0"
)


class CopyOfBroadcast(Rule):
    """
    ## What it does
    Finds a copy of a tensor that is, or may be, a broadcast (stride-0) view, when every
    use of the copy would accept the view itself: `.contiguous()` or `.clone()` of an
    expanded mask passed to a kernel together with its strides; `reshape`/`flatten` that
    merges a stride-0 dim with another, as in the grouped-query attention pattern
    `k[:, :, None].expand(b, h, g, s, d).reshape(b, h * g, s, d)`; and `zeros_like`,
    `ones_like` or `full_like` of a broadcast tensor that is only read.

    ## Why is this bad?
    A broadcast tensor stores only its distinct values; every position along a stride-0
    dim reads the same memory. `.contiguous()`, `.clone()` and `*_like` always allocate the
    full logical size (semantics doc §1.1: `clone(memory_format=torch.preserve_format)`
    does not keep a stride of 0), and `reshape`/`flatten` must copy whenever they merge a
    stride-0 dim with a dim of nonzero stride (no single stride can describe the merged
    dim). The GQA reshape above copies K and V `g` times over. When the consumer reads the
    tensor through its strides anyway (a Triton kernel given `*t.stride()`, or an
    elementwise op, which broadcasts), the copy buys nothing.

    Not reported when the copy is needed: it is written in place afterwards, viewed with
    `.view`, returned or stored, or passed to a kernel that does not receive its strides
    (and so assumes a dense layout). A possibly broadcast parameter is reported only in
    kernel-wrapper scope.

    ## Example
    ```python
    def masked_scale(x, mask):
        m = mask[None, :].expand(x.shape[0], -1).contiguous()
        out = torch.empty_like(x)
        _scale_kernel[(x.shape[0],)](x, m, out, x.shape[1], *m.stride(), BLOCK=1024)
        return out
    ```

    ## Use instead
    ```python
    def masked_scale(x, mask):
        m = mask[None, :].expand(x.shape[0], -1)
        out = torch.empty_like(x)
        _scale_kernel[(x.shape[0],)](x, m, out, x.shape[1], *m.stride(), BLOCK=1024)
        return out
    ```
    For the GQA reshape there is no view with the merged shape; keep the 5-d expanded view
    and let the consumer index KV head `j // g` (or use
    `scaled_dot_product_attention(..., enable_gqa=True)`). The fix rewrites
    `torch.zeros_like(x.expand(s))` as `torch.zeros_like(x).expand(s)`.

    ## Fix safety
    The fix (drop `.contiguous()`/`.clone()`; move `zeros_like` before the expand) is
    **unsafe**: the values are the same, but the result is now a view that shares memory
    with the tensor it was expanded from, so an in-place write to that tensor between the
    copy and its use would now show through, and the kernel sees stride 0 where it saw a
    dense layout; it must really honour the strides it is given. There is no fix for
    `reshape`/`flatten`: no view has the merged shape.
    """

    code = "SL301"
    name = "copy-of-broadcast"
    summary = "Copy materializes a broadcast tensor that every use could read as a view"
    fix_availability = "sometimes"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        facts = ctx.facts
        for flow in facts.flows.values():
            for sink in flow.sinks.values():
                if sink.kind != "copy" or sink.reductions:
                    continue  # a reduced copy is SL101's
                value = common.strongest(v for _, v in sink.operands)
                if not common.reported(facts, flow, value, ctx.scope):
                    continue
                result_uses = uses.uses_of(facts, flow, sink.node)
                if not _all_read(result_uses, launches=True) or common.all_joined(facts, result_uses):
                    continue
                func = sink.node.func
                method = func.attr.value if isinstance(func, cst.Attribute) else "copy"
                operand = sink.operands[0][0]
                tensor = wording.tensor(facts, operand, sink.statement, value)
                message = (
                    f"`{wording.op(facts, sink.node, operand)}` copies {tensor}, but "
                    f"{_readers(result_uses)}: pass the stride-0 view"
                )
                fix = hoist.fix(
                    Applicability.UNSAFE,
                    f"Drop the `.{method}()` ({_UNSAFE})",
                    hoist.drop_call(facts, sink.node),
                )
                yield common.finding(
                    self.code, facts, sink.node, sink.statement, message, value, fix,
                    low=common.output_sized(flow, result_uses),
                )
            for op in flow.layout_ops.values():
                if not common.reported(facts, flow, op.value, ctx.scope):
                    continue
                finding = self._layout(facts, flow, op)
                if finding is not None:
                    yield finding

    def _layout(self, facts: ModuleFacts, flow: FunctionFlow, op: LayoutOp) -> Finding | None:
        value = op.value
        label = wording.op(facts, op.call, op.operand)
        if op.name.endswith("_like"):
            if op.name not in _CONSTANT_LIKE:
                return None
            result_uses = uses.uses_of(facts, flow, op.call)
            if not _all_read(result_uses, launches=False):  # a kernel may write into it
                return None
            if common.all_joined(facts, result_uses):
                return None  # `torch.stack` writes it at this size anyway: output-sized
            tensor = wording.tensor(facts, op.operand, op.statement, value, _like_dtype(op))
            message = (
                f"`{label}` allocates the logical size of {tensor}, but "
                f"{_readers(result_uses)}: create it before the expand and expand it"
            )
            return common.finding(
                self.code, facts, op.call, op.statement, message, value, _like_fix(facts, op)
            )
        merged = reshapes.merge_of(facts, op)
        if merged is None:
            return None
        result_uses = uses.uses_of(facts, flow, op.call)
        if not _all_read(result_uses, launches=True) or common.all_joined(facts, result_uses):
            return None
        tensor = wording.layout_tensor(facts, op)
        message = (
            f"`{label}` {merged}, copying {tensor}, but {_readers(result_uses)}: index the "
            "expanded view in the consumer"
        )
        return common.finding(
            self.code, facts, op.call, op.statement, message, value,
            low=common.output_sized(flow, result_uses),
        )


def _like_dtype(op: LayoutOp) -> cst.BaseExpression | None:
    """Where the `*_like` result's dtype is read: the operand's (None) unless the call names
    another; then the call, whose dtype the analysis does not read (the size stays in elements)."""
    named = any(arg.keyword is not None and arg.keyword.value == "dtype" for arg in op.call.args)
    return op.call if named else None


def _all_read(result_uses: list[Use], *, launches: bool) -> bool:
    """Whether every use reads the copy through its strides, so the view would do. A reshape
    of the copy does not count: on the view it may merge the broadcast dim and copy, which
    only moves the copy."""
    allowed = {uses.READ, uses.STRIDED_LAUNCH} if launches else {uses.READ}
    return bool(result_uses) and all(
        use.kind in allowed and use.need != uses.RESHAPE for use in result_uses
    )


def _readers(result_uses: list[Use]) -> str:
    launch = next((u for u in result_uses if u.kind == uses.STRIDED_LAUNCH), None)
    if launch is not None:
        return launch.why
    return "every use reads it through its strides"


def _like_fix(facts: ModuleFacts, op: LayoutOp) -> Fix | None:
    source = provenance.expand_source(facts, op.operand, op.statement)
    if source is None or not purity.is_pure(facts, source.call):
        return None
    if not all(purity.is_pure(facts, arg.value) for arg in op.call.args):
        return None
    edit = hoist.hoist(facts, op.call, [(op.operand, source)])
    message = f"Create it before the expand and expand it ({_UNSAFE})"
    return hoist.fix(Applicability.UNSAFE, message, edit)
