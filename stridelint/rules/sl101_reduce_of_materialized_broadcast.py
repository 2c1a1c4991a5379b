"""SL101: an elementwise op materializes a broadcast tensor only for a reduction to consume it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from stridelint.findings import Finding
from stridelint.rules import common, wording
from stridelint.rules.base import Rule

if TYPE_CHECKING:
    from stridelint.context import RuleContext


class ReduceOfMaterializedBroadcast(Rule):
    """
    ## What it does
    Finds an elementwise op, dtype cast or copy applied to a tensor that is, or may be, a
    broadcast (stride-0) view, whose result is then reduced: `(mask != 0).sum()`,
    `mask.float().mean(dim)`, `(m.sum(dim=d) - 1).clamp(min=0).sum()` after `m = mask != 0`.

    ## Why is this bad?
    A broadcast tensor made by `expand`, `expand_as`, `broadcast_to` or a stride-0
    `as_strided` costs only its storage, but every elementwise op returns a dense tensor of the
    full *logical* shape. A bool mask of logical shape (65536, 4, 8192) broadcast over the last
    dim stores 256 KiB and materializes 2 GiB; summing a bool or int tensor then converts the
    whole logical tensor to int64 first (8 bytes per logical element). Measured on CPU: with
    2·10^6 logical elements the naive form peaks at 18 MB against 9 KB for the narrowed form,
    and with 10^8 logical elements it takes about 2 s against 0.4 ms.

    ## Example
    ```python
    def reduce_launch_metadata(grid, kernel, args):
        m = args["Mask"] != 0
        loads = m.sum()
        adds = (m.sum(dim=args["DIM"]) - 1).clamp(min=0).sum()
    ```

    ## Use instead
    Narrow every dim whose stride is 0 and size > 1 to size 1 *before* the elementwise op,
    reduce the small tensor, and rescale each reduction right after it by the repeat count of
    the dims it reduced; a later full reduction multiplies by the repeats still pending:
    ```python
    Mask_small, Mask_reps = _narrow_broadcast(args["Mask"])
    m = Mask_small != 0
    loads = _count_true(m) * math.prod(Mask_reps)
    adds = (
        _count_true(m) * math.prod(Mask_reps)
        - _count_true(m, dim, rows=True)
        * (math.prod(Mask_reps) // _repeats(Mask_reps, dim))
    )
    ```
    A count of a tensor the code shows is bool (a comparison, a bool cast) goes to a count
    helper: `count_nonzero` on the CPU, which copies nothing; elsewhere int32 sixteenths of
    the tensor, as `sum` and `count_nonzero` there first copy it to int64 (8 bytes an
    element). `(m.sum(dim) - 1).clamp(min=0).sum()` of such a tensor, written in one
    expression or through per-row counts that only the next statement reads, becomes the
    kept elements minus the rows that keep any, so the per-row counts are never made. Where
    the dtype is not shown, each reduction is rescaled as it stands:
    ```python
    per_row = m.sum(dim=dim) * _repeats(Mask_reps, dim)
    adds = (
        (per_row - 1).clamp(min=0).sum()
        * (math.prod(Mask_reps) // _repeats(Mask_reps, dim))
    )
    ```
    For a tensor the function made itself (`m = mask.expand(rows, -1)`), the fix writes the
    narrowing out instead of calling a helper:
    ```python
    m_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride()))
    m_small = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps)]
    ```
    Otherwise it adds the small helpers to the module once, or imports them from the module
    that the `helper-module` setting names (`stridelint helpers` prints its text). The
    lines it writes fit the `line-length` setting (else Ruff's or Black's, else 88): a longer
    rescaled expression is broken inside parentheses, as a formatter would.

    ## Fix safety
    Safe when every rescaled reduction counts bool or integer values (sums and counts are
    exact, even on int64 overflow) or is scale-free on identical values (`any`, `all`,
    `amax`, `amin`). The bool counts' rewrites are safe too: the helper's count is exact on
    both paths (each int32 part holds fewer than 2^31 elements) and, like `sum`, a 0-d
    int64 tensor on the tensor's device; and over the rows of a bool tensor, the kept
    elements beyond each row's first are the kept elements minus the rows that keep any,
    every term an exact int64 count, so value, dtype, shape and device are the original's
    for every input. Unsafe when a float sum, product, mean or logsumexp is rescaled: the
    narrowed form rounds differently (usually more accurately), and in fp16/bf16 a product
    `y.prod() ** n` can overflow or underflow where the original's running product did not,
    or the reverse. fp16/bf16 sums accumulate in fp32 and round once, like the original.
    No fix is offered when the materialized tensor is used by anything but reductions, or when
    a result would keep a narrowed dim. When the result is mixed with a tensor that may be
    full-size and dense before the reduction (`(gate & ~mask).sum()`), narrowing cannot apply:
    that is no SL101 but an SL201 finding on the op, to hoist before the expand.

    The narrowing runs only where the original ran the op: a statement of its own just
    before the op's statement when that provably changes nothing, else bound inside the
    expression with `:=` (a branch of `a if c else b`, the right side of `and`/`or`, a
    comprehension, a lambda's body, an `elif`, `while` or `assert` test). Top-level code
    (scripts, notebook cells) and lambdas are fixed like function bodies. The fix is shown
    but never applied (display) when a precondition cannot be proven: a runtime `dim` that
    may be rebound or changed before the later reduction reads it again, a materialized
    tensor also read by a nested function, a lambda, an f-string or as a global, an operand
    that may be a tensor (`abs(t)`), a `sum(dtype=...)` whose dtype the rescale may not
    keep, top-level code that runs before an import or helper the fix reads is bound. Its
    names never collide with the module's: locals, helpers and the `math`/`torch` imports
    it reads are chosen where nothing shadows them.
    """

    code = "SL101"
    name = "reduce-of-materialized-broadcast"
    summary = "Elementwise op materializes a broadcast tensor that is then reduced"
    fix_availability = "sometimes"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        facts = ctx.facts
        for flow in facts.flows.values():
            for sink in flow.sinks.values():
                if not sink.reductions:
                    continue
                value = common.strongest(v for _, v in sink.operands)
                if not common.reported(facts, flow, value, ctx.scope):
                    continue
                operand = sink.operands[0][0]
                tensor = wording.tensor(facts, operand, sink.statement, value, sink.node)
                message = (
                    f"`{wording.op(facts, sink.node, operand)}` materializes {tensor}, then "
                    f"`{wording.around(facts, sink.reductions[0], sink.node)}` reduces it: "
                    "narrow it before the op and rescale"
                )
                from stridelint.transforms.narrow_rescale import fix_sink  # with a finding only

                yield common.finding(
                    self.code, facts, sink.node, sink.statement, message, value,
                    fix_sink(facts, flow, sink, ctx.fix_style),
                )
