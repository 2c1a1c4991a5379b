"""SL201: an elementwise op or dtype cast turns a broadcast tensor into a full-size one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from stridelint.analysis import torch_ops
from stridelint.analysis.values import Broadcast, Sink, State
from stridelint.findings import Applicability, Finding, Fix
from stridelint.lazy import lazy_import
from stridelint.rules import common, wording
from stridelint.rules.base import Rule

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import PerTokenCall
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.uses import Use
    from stridelint.context import RuleContext

cst = lazy_import("libcst")
dtypes = lazy_import("stridelint.analysis.dtypes")
names = lazy_import("stridelint.analysis.names")
provenance = lazy_import("stridelint.analysis.provenance")
per_token = lazy_import("stridelint.analysis.per_token")
purity = lazy_import("stridelint.analysis.purity")
uses = lazy_import("stridelint.analysis.uses")
hoist = lazy_import("stridelint.transforms.hoist")

# Ops whose every result is correctly rounded (or exact) whatever code path computes it: on
# the small tensor they give the same bits as on the full one. Transcendental functions may
# not: CPU kernels take a vectorized path for long rows and a scalar one for short rows, and
# `rsqrt` was measured to differ between the two in the last place.
_EXACT_METHODS = torch_ops.CAST_METHODS | torch_ops.BOOL_RESULT_METHODS | {
    "to", "type", "abs", "neg", "negative", "add", "sub", "subtract", "mul", "multiply",
    "div", "divide", "true_divide", "clamp", "clip", "clamp_min", "clamp_max", "floor",
    "ceil", "round", "trunc", "sign", "square", "sqrt", "relu", "maximum", "minimum",
    "masked_fill", "where", "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "nan_to_num", "remainder", "fmod",
}  # fmt: skip
_EXACT_OPERATORS = frozenset(  # LibCST operator node names (no LibCST import at load time)
    {"Add", "Subtract", "Multiply", "Divide", "Modulo", "BitAnd", "BitOr", "BitXor",
     "BitInvert", "Minus", "Plus"}
)  # fmt: skip


class ElementwiseAfterExpand(Rule):
    """
    ## What it does
    Finds an elementwise op or a dtype cast applied to a tensor made by `expand`,
    `expand_as` or `broadcast_to` in the same function, whose result is kept as a tensor
    rather than reduced: `mask[:, None, None, :].expand(b, h, t, s).to(dtype)`, then
    `1.0 - m`, `~m`, `m * -1e4`, `torch.where(m, a, 0.0)`, or `cos`/`sin` of an expanded
    rotary angle. (When the result is reduced, SL101 reports it instead.) Also an expanded
    bool mask passed as `attn_mask` to `F.scaled_dot_product_attention`, which turns it into
    a float bias of the mask's full logical size before attention runs. And an op (with
    numbers at most) on a concatenation whose every part is an expand, such as a rotary
    table `torch.cat([t.expand(f, h, w, -1), s.expand(f, h, w, -1)], -1).to(x.dtype)`: the
    concatenation is dense, but the op converts each repeated value of its parts (no fix:
    apply it to each part before its expand, then concatenate). The expand or the
    concatenation may be made by the caller: a function or a block's `forward` given one
    (`for block in self.blocks: x = block(x, modulation)`), or given an expand on one path
    and a concatenation of expands on another, is reported where it runs the op. And a
    module the code holds run on one number or one row copied per token, such as a timestep
    embedder given `t.expand(token_h * token_w)` or a modulation Linear given
    `t_emb.unsqueeze(1).expand(-1, seq_len, -1)`, or given a concatenation of such copies or
    one number filled in one (`torch.full_like(t.expand(n), scale)`), or given rows computed
    from a timestep per frame copied to every token of its frame
    (`t.unsqueeze(-1).expand(b, f, seq_len // f).reshape(b, -1)`, then sinusoids of it, also
    in a function of the module): it computes one identical output row per token (no fix: run
    it before the expand, then let the add broadcast its result). A copy per batch row
    (`t.expand(latents.shape[0])`, `x.expand(batch_size, -1, -1)`) is a few rows and is left
    alone.

    ## Why is this bad?
    An expanded tensor costs only its storage: `mask[:, None, None, :]` of a (b, s) mask
    expanded to (b, h, t, s) stores b·s values, and every position along the h and t dims
    reads the same memory (stride 0). An elementwise op or a cast never keeps a stride of 0:
    it allocates and computes a dense tensor of the full logical size, b·h·t·s values (h·t
    times the storage), although the result still holds only b·s distinct values. Applied
    to the storage first and expanded afterwards, the same op allocates and computes b·s
    values and the result is again a free stride-0 view.

    ## Example
    ```python
    def _expand_mask(mask, dtype, tgt_len):
        bsz, src_len = mask.size()
        expanded = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
        inverted = 1.0 - expanded
        return inverted.masked_fill(inverted.to(torch.bool), torch.finfo(dtype).min)
    ```

    ## Use instead
    Apply the op to the tensor before the expand, then expand the result:
    ```python
    def _expand_mask(mask, dtype, tgt_len):
        bsz, src_len = mask.size()
        expanded = mask[:, None, None, :].to(dtype).expand(bsz, 1, tgt_len, src_len)
        inverted = (1.0 - mask[:, None, None, :].to(dtype)).expand_as(expanded)
        return inverted.masked_fill(
            (1.0 - mask[:, None, None, :].to(dtype)).to(torch.bool).expand_as(inverted),
            torch.finfo(dtype).min,
        )
    ```
    The fix moves one op at a time; each pass of `stridelint fix` moves the next op of a
    chain, until an op meets a tensor that may be full-size (here `masked_fill`'s fill
    value). When the operand is a name bound to an expand earlier, the fix repeats the
    pre-expand expression and expands with `.expand_as(name)`; it does so only when that
    expression means the same there (none of its names is rebound or written in between).

    A same-dtype cast (`.bool()` of an expanded comparison) returns the tensor itself and
    is not reported. Nor is an op whose result must be dense: one written in place,
    viewed with `.view`, or passed to a kernel without its strides. A cast of a module's
    own parameter, expanded, to a dtype the code reads at runtime (`.to(hidden.dtype)`,
    `.type_as(x)`) is low severity: parameters are cast with their module, so in a model
    run in one dtype it returns the parameter.

    ## Fix safety
    The values are the same: an elementwise op commutes with `expand`. What changes is the
    layout of the result, which becomes a stride-0 view; an in-place write into it raises
    (or writes every aliased position), `.view(-1)` raises, and a kernel that assumes a
    dense layout reads the wrong memory. The fix is **safe** when every use of the result
    reads it through its strides and nothing else sees it: another elementwise op (whose
    own result is dense again), a reduction, an argument of `masked_fill` or `torch.where`,
    a kernel launch that also receives the result's strides. It is **unsafe** when the
    result escapes (returned, stored in an attribute or a container, passed to a function
    the fix cannot see), when its strides or `data_ptr` are read, when the op is a
    transcendental function (`exp`, `cos`, `rsqrt`, ...: the smaller tensor may take
    another code path on CPU and round differently in the last place), and when two
    different tensors are hoisted together (a 0-d tensor promotes differently from an
    expanded one). There is no fix when an operand is not visibly an expand.
    """

    code = "SL201"
    name = "elementwise-after-expand"
    summary = "Elementwise op or dtype cast materializes a broadcast tensor at full size"
    fix_availability = "sometimes"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        facts = ctx.facts
        for flow in facts.flows.values():
            for sink in flow.sinks.values():
                if sink.kind not in ("elementwise", "cast") or sink.reductions:
                    continue  # copies are SL301; reduced results are SL101
                value = common.strongest(v for _, v in sink.operands)
                if not (value.always_repeats or value.local):
                    continue  # not broadcast here
                if sink.consumer is not None:
                    yield _inside_call(self.code, facts, sink, value)
                    continue
                if _is_nonzero(facts, sink.node):
                    continue
                result_uses = uses.uses_of(facts, flow, sink.node)
                if _dense_anyway(facts, result_uses):
                    continue
                operand = sink.operands[0][0]
                tensor = wording.tensor(facts, operand, sink.statement, value, sink.node)
                message = f"`{wording.op(facts, sink.node, operand)}` materializes {tensor}" + (
                    _REPEATED_HINT if _repeated_only(value) else
                    f": apply the op before the expand{wording.expand_site(value)}, then expand"
                )
                yield common.finding(
                    self.code, facts, sink.node, sink.statement, message, value,
                    _fix(facts, sink, result_uses),
                    low=(
                        common.output_sized(flow, result_uses)
                        or _cast_of_weights(facts, sink, value)
                    ),
                )
            for call in flow.per_token_calls.values():
                if common.reported(facts, flow, call.value, ctx.scope):
                    yield _run_per_token(self.code, facts, call)
            for op in flow.concatenated_ops.values():
                result_uses = uses.uses_of(facts, flow, op.node)
                if _dense_anyway(facts, result_uses):
                    continue
                message = (
                    f"`{wording.op(facts, op.node, op.operand)}` runs on a concatenation of "
                    f"broadcasts at its full size: apply the op to each part before its "
                    f"expand, then concatenate"
                )
                yield common.finding(
                    self.code, facts, op.node, op.statement, message, op.value,
                    low=common.output_sized(flow, result_uses),
                )


_REPEATED_HINT = (
    ", repeated on every path (an expand, or a concatenation of expands): apply the op "
    "before each expand, then expand and concatenate"
)


def _repeated_only(value: Broadcast) -> bool:
    """Possibly a stride-0 view and otherwise a concatenation of broadcasts (`Broadcast.
    repeated`), made in another function: where its expands are is the caller's to say."""
    return value.state is State.POSSIBLE and value.repeated and not value.local


def _cast_of_weights(facts: ModuleFacts, sink: Sink, value: Broadcast) -> str | None:
    """A low-severity reason for a cast of a module's expanded parameter to a dtype the code
    reads at runtime (`.to(hidden_states.dtype)`): in a model run in one dtype it returns the
    parameter itself (weights.py)."""
    if sink.kind != "cast" or not value.weights or not isinstance(sink.node, cst.Call):
        return None
    if not dtypes.reads_target_at_runtime(facts, sink.node, sink.statement):
        return None
    return (
        "the module's own parameter, cast to a dtype read at runtime: in a model run in one "
        "dtype, its own"
    )


def _dense_anyway(facts: ModuleFacts, result_uses: list[Use]) -> bool:
    """The op's result must be dense (a use needs it so), or `torch.cat` writes it at this
    size anyway (output-sized): nothing to save."""
    return any(use.kind == uses.DENSE for use in result_uses) or common.all_joined(
        facts, result_uses
    )


def _inside_call(code: str, facts: ModuleFacts, sink: Sink, value: Broadcast) -> Finding:
    """A bool mask a call converts to a float bias of its full size (`Sink.consumer`). No
    fix: which attention backend runs may depend on the mask's shape."""
    operand = sink.node
    tensor = wording.tensor(facts, operand, sink.statement, value, operand)
    called = (sink.consumer or "").rsplit(".", 1)[-1]
    message = (
        f"`{called}` makes a full-size float bias of {tensor}, a bool mask: pass the mask "
        "before the expand, it broadcasts"
    )
    return common.finding(code, facts, operand, sink.statement, message, value)


def _run_per_token(code: str, facts: ModuleFacts, call: PerTokenCall) -> Finding:
    """A module run on one number or one row copied per token computes one identical output
    row per copy. No fix: only the module knows whether it treats its rows alone."""
    callee = facts.snippet(call.call.func, wording.SNIPPET_LIMIT)
    if call.form == per_token.COPY:
        tensor = wording.tensor(facts, call.operand, call.statement, call.value)
        message = (
            f"`{callee}` runs on {tensor}, the same values copied per token: call it before "
            "the expand, then expand its result"
        )
    else:  # what the module runs on, and what to do instead
        what, advice = {
            per_token.CONCATENATION: (
                "a concatenation of rows each copied per token",
                "call it on the rows before their expands, then expand and concatenate its "
                "results",
            ),
            per_token.FILL: (
                "one number filled in a copy per token",
                "call it on the number, then expand its result",
            ),
            per_token.COMPUTED: (
                "rows computed from numbers copied per token",
                "compute them from the numbers before the expand, call it on those rows, "
                "then expand its result",
            ),
        }[call.form]
        operand = facts.snippet(call.operand, wording.SNIPPET_LIMIT)
        message = f"`{callee}` runs on `{operand}`, {what}: {advice}"
    return common.finding(
        code, facts, call.call, call.statement, message, call.value, any_size=True
    )


def _fix(facts: ModuleFacts, sink: Sink, result_uses: list[Use]) -> Fix | None:
    sources = []
    for operand, _ in sink.operands:
        source = provenance.expand_source(facts, operand, sink.statement)
        if source is None:
            return None
        sources.append((operand, source))
    inline = [source.call for _, source in sources if source.name is None]
    if not all(purity.is_pure(facts, call) for call in inline) or not purity.is_pure(
        facts, sink.node
    ):
        return None  # the rewrite evaluates the op's arguments before the expand's
    unsafe = [f"{use.why}" for use in result_uses if use.kind == uses.OPAQUE]
    reasons = list(dict.fromkeys(unsafe))
    if not _exact(sink.node):
        reasons.append("a transcendental function may round differently on the smaller tensor")
    if len({source.pre for _, source in sources}) > 1:
        reasons.append("a 0-d tensor before the expand would change type promotion")
    edit = hoist.hoist(facts, sink.node, sources)
    message = "Apply the op before the expand and expand its result"
    if reasons:
        message += f" (unsafe: the result becomes a stride-0 view and {'; '.join(reasons)})"
        return hoist.fix(Applicability.UNSAFE, message, edit)
    return hoist.fix(Applicability.SAFE, message, edit)


def _exact(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.BinaryOperation):
        return type(node.operator).__name__ in _EXACT_OPERATORS
    if isinstance(node, cst.UnaryOperation):
        return type(node.operator).__name__ in _EXACT_OPERATORS
    if isinstance(node, cst.Comparison):
        return True
    if isinstance(node, cst.Call):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else names.dotted(func) or ""
        return name in _EXACT_METHODS
    return False


def _is_nonzero(facts: ModuleFacts, node: cst.BaseExpression) -> bool:
    """`torch.where(cond)` with one argument lists indices: not an elementwise op."""
    if not isinstance(node, cst.Call) or len(node.args) != 1:
        return False
    func = node.func
    if isinstance(func, cst.Attribute) and facts.imports.resolve(func) is None:
        return False
    return (facts.imports.resolve(func) or "").endswith(".where")
