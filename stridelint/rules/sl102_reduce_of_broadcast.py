"""SL102: a reduction runs over a broadcast tensor's logical size instead of its storage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from stridelint.findings import Finding
from stridelint.rules import common, wording
from stridelint.rules.base import Rule

if TYPE_CHECKING:
    from stridelint.context import RuleContext


class ReduceOfBroadcast(Rule):
    """
    ## What it does
    Finds a reduction (`sum`, `count_nonzero`, `mean`, `any`, `amax`, `prod`, ...) applied
    straight to a tensor that is, or may be, a broadcast (stride-0) view.

    ## Why is this bad?
    A reduction visits every logical element, so its work is proportional to the logical
    size, not the storage. Worse, on CPU and CUDA `sum`, `nansum` and `prod` of bool and
    integer tensors first convert the whole logical input to int64: 8 bytes per logical
    element for a tensor that may store a few kilobytes (semantics doc §1.4: an expanded
    int32 mask of 10^8 logical elements needs 800 MB to be summed).

    A count of what a broadcast bool mask selects from another tensor (`x[mask].numel()`), and
    an in-place update of it (`x[mask] += 1e9`), are reported too: boolean indexing finds every
    selected element over the mask's logical size, with an int64 index each, and gathers them,
    only for the count, or to write them back (found a second time).

    ## Example
    ```python
    mask = mask[:, None, :].expand(batch, heads, seq)
    valid = mask.sum(dim=-1)
    ```

    ## Use instead
    ```python
    mask_small, mask_reps = _narrow_broadcast(mask)
    valid = mask_small.sum(dim=-1) * mask_reps[-1]
    ```
    When a result keeps a narrowed dim the fix is not offered (it would need an `expand`).
    For `x[mask].numel()`, count the mask before its expand (`mask.sum() * hidden`); for
    `x[mask] += v`, `x = torch.where(mask, x + v, x)` or `x += v * small_mask` with the mask
    before its expand. No fix is offered for these: the rescale and the rewrite depend on sizes
    and dtypes the code may not show.

    ## Fix safety
    Safe for counts (`count_nonzero`) and scale-free reductions of identical values (`any`,
    `all`, `amax`, `amin`), and for sums of their results (`mask.any(dim).sum()` counts bools:
    exact). Unsafe for `sum`, `prod`, `mean` and `logsumexp` of the tensor itself: its dtype
    is not known statically, and float results round differently; in fp16/bf16 a product can
    overflow or underflow where the original did not, or the reverse. Where the narrowing
    runs, and when the fix is only shown, follow SL101.
    """

    code = "SL102"
    name = "reduce-of-broadcast"
    summary = "Reduction over a broadcast tensor works on its full logical size"
    fix_availability = "sometimes"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        facts = ctx.facts
        for flow in facts.flows.values():
            for reduction in flow.broadcast_reductions.values():
                value = reduction.value
                if not common.reported(facts, flow, value, ctx.scope):
                    continue
                tensor = wording.tensor(facts, reduction.operand, reduction.statement, value)
                op = wording.op(facts, reduction.call, reduction.operand)
                if reduction.selection is not None:
                    message = (
                        f"`{op}` gathers the selected elements only to count them, over the "
                        f"logical size of {tensor}: count the mask before the expand and rescale"
                        if reduction.selection == "count"
                        else f"`{op}` finds the elements to update twice (to read, to write "
                        f"back), over the logical size of {tensor}: update through "
                        f"`torch.where` or with the mask before the expand"
                    )
                    yield common.finding(
                        self.code, facts, reduction.call, reduction.statement, message, value
                    )
                    continue
                message = (
                    f"`{op}` visits every logical element of {tensor}: narrow it to its "
                    f"storage and rescale"
                )
                from stridelint.transforms.narrow_rescale import fix_reduction  # with a finding only

                yield common.finding(
                    self.code, facts, reduction.call, reduction.statement, message, value,
                    fix_reduction(
                        facts, flow, reduction.operand, reduction.statement, ctx.fix_style
                    ),
                )
