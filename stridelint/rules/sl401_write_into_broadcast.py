"""SL401: a write into a broadcast tensor raises, writes every aliased position, or gives
wrong values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from stridelint.analysis import torch_ops
from stridelint.analysis.values import Broadcast, Dense, Derived, Scalar, State
from stridelint.findings import Finding
from stridelint.lazy import lazy_import
from stridelint.rules import common, wording
from stridelint.rules.base import Rule

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import FunctionFlow, Write
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.provenance import ExpandedDims
    from stridelint.context import RuleContext

cst = lazy_import("libcst")
literals = lazy_import("stridelint.analysis.literals")
provenance = lazy_import("stridelint.analysis.provenance")

# What PyTorch does when a write's destination has a stride-0 dim of size > 1 (semantics
# §1.3; the tables below were measured with torch 2.13 on CPU and are checked against the
# installed torch by tests/rules/test_sl2_sl4_units.py).
RAISES = (
    'PyTorch raises "more than one element of the written-to tensor refers to a single memory '
    'location"'
)
SILENT = (
    "PyTorch silently writes the one stored copy, so every aliased position (and the tensor "
    "it was expanded from) changes"
)
SILENT_UNLESS = (
    "if the integer index removes every stride-0 dim, PyTorch silently writes the one stored "
    "copy that every aliased position shares; if a stride-0 dim survives the index, "
    f"{RAISES}"
)
WARNS = (
    "PyTorch only warns that this is deprecated on expanded tensors, and writes the one "
    "stored copy that every aliased position shares"
)
WRONG = (
    "PyTorch silently computes wrong values: every output element is one shared memory "
    "location"
)
RAISES_OR_WRONG = (
    'PyTorch either raises "more than one element of the written-to tensor refers to a single '
    'memory location" or writes every output element into shared memory and computes wrong '
    "values"
)

SILENT_METHODS = frozenset({"zero_", "fill_"})
WARNING_METHODS = frozenset({"masked_fill_", "index_fill_", "index_put_"})
# In-place ops that change a tensor's metadata, not its elements: no write.
METADATA_METHODS = frozenset(
    {"unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_", "swapaxes_", "as_strided_",
     "resize_", "resize_as_", "set_", "detach_", "rename_", "refine_names_"}
)  # fmt: skip
# `out=` of a reduction or a matmul into a broadcast tensor: wrong values, no error.
WRONG_OUT_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in ("sum", "nansum", "prod", "amax", "amin", "std", "var", "any", "all",
                 "matmul", "mm", "mv", "bmm", "linalg.vector_norm", "linalg.norm", "norm")
)  # fmt: skip
# `out=` that raises: TensorIterator ops and these.
RAISING_OUT_FUNCTIONS = frozenset(
    f"torch.{name}" for name in ("mean", "cumsum", "logsumexp", "cat", "where")
)


class WriteIntoBroadcast(Rule):
    """
    ## What it does
    Finds a write into a tensor that is, or may be, a broadcast (stride-0) view: an in-place
    method (`add_`, `mul_`, `copy_`, `fill_`, `zero_`, `masked_fill_`, `index_put_`, ...),
    an item or slice assignment (`x[i] = v`, `x[:, 0] = v`), an augmented assignment
    (`x += v`), or an `out=` argument. It says which of three things happens.

    ## Why is this bad?
    Every position along a stride-0 dim is one memory location, so a write through such a
    view is either rejected or lands on memory many positions share (semantics doc §1.3):

    * **It raises** `RuntimeError: unsupported operation: more than one element of the
      written-to tensor refers to a single memory location` for most in-place ops (`add_`,
      `mul_`, `clamp_`, `copy_`, `uniform_`, ...), for `x += v`, `x[...] = v`, `x[:] = v`,
      `x[:, 0] = v` when dim 0 is a stride-0 dim, and for `out=` of elementwise ops, `mean`,
      `cumsum`, `logsumexp` and `cat`.
    * **It silently writes every aliased position** for `zero_()` and `fill_()`, and for
      `x[i] = row` or `x[i, j] = v` when the integer index removes the stride-0 dims: the
      one stored row changes, so every row of `x`, and the tensor `x` was expanded from,
      change with it. `masked_fill_`, `index_fill_` and `index_put_` (also `x[mask] = v`)
      do the same and only warn that this is deprecated.
    * **It silently computes wrong values** for `out=` of a reduction or a matrix product
      (`sum`, `prod`, `amax`, `std`, `any`, `matmul`, ...): all outputs share one location,
      so `torch.sum(torch.ones(3, 4), 1, out=torch.zeros(1).expand(3))` returns
      `[12, 12, 12]` instead of `[4, 4, 4]`.

    ## Example
    ```python
    def row_sums(x):
        out = torch.zeros(1, dtype=x.dtype).expand(x.shape[0])
        torch.sum(x, 1, out=out)
        return out
    ```

    ## Use instead
    Write into a dense tensor: allocate one, or `clone()` the broadcast view first (a clone
    is dense, so writing into it is fine).
    ```python
    def row_sums(x):
        out = torch.zeros(x.shape[0], dtype=x.dtype)
        torch.sum(x, 1, out=out)
        return out
    ```

    ## Fix safety
    There is no fix: whether the code meant to write one shared value or one value per
    position is for its author to decide.
    """

    code = "SL401"
    name = "write-into-broadcast"
    summary = "Write into a broadcast tensor raises, changes every aliased position, or is wrong"
    severity = "error"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        facts = ctx.facts
        for flow in facts.flows.values():
            for write in flow.writes.values():
                value = write.value
                if write.method in METADATA_METHODS or _builds_a_container(write):
                    continue
                if not common.reported(facts, flow, value, ctx.scope):
                    continue
                outcome = _outcome(facts, flow, write)
                if value.state is not State.DEFINITE:
                    outcome = f"if it is broadcast, {outcome}"
                node = write.target if write.kind == "out" else write.node
                tensor = wording.tensor(facts, write.target, write.statement, value, size=False)
                message = f"`{facts.snippet(write.node)}` writes into {tensor}: {outcome}"
                yield common.finding(
                    self.code, facts, node, write.statement, message, value, any_size=True
                )


def _builds_a_container(write: Write) -> bool:
    """`dict(out=x)` holds `x`; it writes nothing into it."""
    call = write.node
    return (
        write.kind == "out"
        and isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value in _CONTAINER_BUILTINS
    )


_CONTAINER_BUILTINS = frozenset({"dict", "list", "tuple", "set", "print", "repr", "str", "format"})
# Index entries the code does not spell out (beyond literals.index_kind's kinds): one the
# dataflow saw as a tensor (advanced indexing), and a name that may be an integer or a tensor.
_TENSOR = "tensor"
_NAME = "name"


def _outcome(facts: ModuleFacts, flow: FunctionFlow, write: Write) -> str:
    if write.kind == "inplace":
        if write.method in SILENT_METHODS:
            return SILENT
        if write.method in WARNING_METHODS:
            return WARNS
        return RAISES
    if write.kind == "augassign":
        return RAISES
    if write.kind == "out":
        call = write.node
        qualified = facts.imports.resolve(call.func) if isinstance(call, cst.Call) else None
        if qualified in WRONG_OUT_FUNCTIONS:
            return WRONG
        if qualified in RAISING_OUT_FUNCTIONS or qualified in torch_ops.ELEMENTWISE_FUNCTIONS:
            return RAISES
        return RAISES_OR_WRONG
    target = write.node.target if isinstance(write.node, cst.AugAssign) else write.node
    if not isinstance(target, cst.Subscript):
        return RAISES
    dims = provenance.dims_of(facts, target.value, write.statement)
    return _indexed_outcome(flow, target, dims)


def _indexed_outcome(flow: FunctionFlow, target: cst.Subscript, dims: ExpandedDims | None) -> str:
    """What `x[index] = v` does, from which dims the index removes (semantics §1.3)."""
    kinds = [_index_kind(flow, element.slice) for element in target.slice]
    if _TENSOR in kinds:
        return WARNS  # advanced indexing is an index_put_
    outcome = _basic_indexed_outcome(kinds, dims)
    if _NAME in kinds:
        outcome += " (if the index is a tensor, this is an `index_put_`, which only warns)"
    return outcome


def _basic_indexed_outcome(kinds: list[str], dims: ExpandedDims | None) -> str:
    # a name is most likely an integer
    kinds = [literals.INTEGER if kind == _NAME else kind for kind in kinds]
    count = len(dims.sizes) if dims is not None else None
    removed, kept = _removed_and_kept(kinds, count)
    if dims is not None and dims.broadcast & kept:
        return RAISES
    if dims is not None and removed is not None and dims.candidates <= removed:
        return SILENT  # every dim the expand may have made stride 0 is indexed away
    if literals.INTEGER not in kinds:
        return RAISES  # every dim survives, the stride-0 ones among them
    if (
        count is not None
        and kinds.count(literals.INTEGER) == count
        and set(kinds) <= {literals.INTEGER, literals.NEW_DIM}
    ):
        return SILENT  # a single element
    return SILENT_UNLESS


def _index_kind(flow: FunctionFlow, index: cst.BaseSlice) -> str:
    """The literal kind of an index entry (any slice keeps its dim), and for the rest whether
    the dataflow saw a tensor (advanced indexing) or a Python scalar there."""
    kind = literals.index_kind(index)
    if kind == literals.RANGE:
        return literals.SLICE
    if kind != literals.OTHER:
        return kind
    value = index.value
    if isinstance(value, (cst.List, cst.Tuple, cst.Comparison)) or isinstance(
        flow.value_of(value), (Broadcast, Dense, Derived)
    ):
        return _TENSOR
    if isinstance(flow.value_of(value), Scalar):
        return literals.INTEGER
    return _NAME  # an integer or a tensor: the code does not say


def _removed_and_kept(kinds: list[str], count: int | None) -> tuple[set[int] | None, set[int]]:
    """Dims of the indexed tensor the index removes (integers) and keeps (slices, and the
    dims it does not mention). Positions after an `...` count from the end."""
    placed = [k for k in kinds if k != literals.NEW_DIM]  # None adds a size-1 dim, takes none
    if literals.ELLIPSIS in placed:
        cut = placed.index(literals.ELLIPSIS)
        before, after = placed[:cut], placed[cut + 1 :]
        if count is None:
            kept = {i for i, k in enumerate(before) if k == literals.SLICE}
            return None, kept
        positions = list(enumerate(before)) + [
            (count - len(after) + i, k) for i, k in enumerate(after)
        ]
    else:
        positions = list(enumerate(placed))
    removed = {p for p, k in positions if k == literals.INTEGER}
    kept = {p for p, k in positions if k != literals.INTEGER}
    if count is not None:
        kept |= set(range(count)) - removed - {p for p, _ in positions}
    return removed, kept
