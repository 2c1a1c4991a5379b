"""The abstract values the broadcast analysis tracks, and how they join at control-flow merges."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from stridelint.findings import Evidence

if TYPE_CHECKING:
    import libcst as cst


class State(enum.IntEnum):
    """How sure we are that a tensor has a stride-0 dim of size > 1 (ARCHITECTURE.md)."""

    NONE = 0
    POSSIBLE = 1
    DEFINITE = 2


@dataclass(frozen=True)
class Group:
    """One of the tensors a `torch.broadcast_tensors(a, b, ...)` call returned, `member` of
    `members`, with the subscripts applied to it since (`indexing`: each entry's kind, and
    its code where the kind alone does not fix the shape). Every dim the call grows is dense
    in some member, so an op over all members lined up alike holds a different value at
    every position: the output, no waste (semantics §0 rule 5, an intersection that is empty)."""

    call: cst.Call
    member: int
    members: int
    indexing: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Broadcast:
    """A tensor that is, or may be, a stride-0 view; `evidence` says why."""

    state: State
    evidence: tuple[Evidence, ...]
    local: bool = False  # made by a broadcast op in this function (not only suspected)
    # Expanded to one dim only (`timestep.expand(batch)`): its logical size is that dim's,
    # so materializing it costs as much as any other small tensor; or repeated only a few
    # times along literal dims (`pos[None].expand(3, -1, -1)`): at most that multiple of a
    # source that exists densely anyway (size-aware findings: low severity).
    small: bool = False
    # Expanded from an index vector (`torch.arange(n)[:, None].expand(n, m)`): a position grid,
    # the ids or offsets the code wants and small beside the activations. Materializing it
    # wastes nothing; reducing it still repeats the work per copy.
    grid: bool = False
    group: Group | None = None  # one output of a broadcast_tensors-like call; views drop it
    # Every dim it may be stride 0 along is among its first `leading` dims (an expand whose
    # sizes the code spells): indexing those away with integers leaves no broadcast. Views,
    # which may move dims, drop it.
    leading: int | None = None
    # One number or one row copied per token, not per batch row (`t.expand(token_h * token_w)`,
    # `t_emb.unsqueeze(1).expand(b, n, -1)`; per_token.py): a module given it runs once per copy.
    per_token: bool = False
    # POSSIBLE, yet its values repeat on every path: a stride-0 view on some, a concatenation of
    # broadcasts (`Dense.concatenated`) on the others (`torch.cat` of expands under an `if`). An
    # elementwise op on it runs at full size whichever path ran.
    repeated: bool = False
    # Its number of dims, where the expand spells each size (`x.expand(b, n, 6, -1)`: 4) and
    # every view since keeps it (`permute`, `transpose`, a move to a device); else None.
    rank: int | None = None
    # Expanded from a parameter of the module whose method expands it (weights.py): in a model
    # run in one dtype it has its activations' dtype, so a cast to a dtype read at runtime
    # (`.to(hidden_states.dtype)`) usually returns it (a low-severity finding).
    weights: bool = False

    @property
    def always_repeats(self) -> bool:
        return self.state is State.DEFINITE or self.repeated


@dataclass(frozen=True)
class Scalar:
    """A Python number (or something that behaves like one in tensor arithmetic)."""


@dataclass(frozen=True)
class NoTensor:
    """`None`: no tensor at all. A tensor op on it raises, so on every path where an op or
    call sees a tensor, the tensor comes from another path: a join keeps that path's value
    (`m = None`, then `if c: m = x.expand(n, -1)`: where `m` is a tensor, it is broadcast)."""


@dataclass(frozen=True)
class Dense:
    """A tensor known to have no stride-0 dim: a fresh allocation or the result of other dense work."""

    # Built from `torch.arange`/`linspace` and numbers only: an index or coordinate vector,
    # whose expands are position grids (size-aware findings).
    index: bool = False
    # A concatenation whose every part is a broadcast (`torch.cat([a.expand(...), b.expand(...)])`):
    # dense, but its values repeat along the parts' broadcast dims, so an op on it alone runs at
    # full size where the same op on each part before its expand would not. The parts'
    # broadcasts, joined (their evidence, and small or grid only if all are).
    concatenated: Broadcast | None = None
    # One copy per token of a single number, filled: `torch.full_like(t.expand(n), v)` has the
    # broadcast's shape and one value everywhere (the broadcast it copies the shape of, when
    # that is a per-token copy, `Broadcast.per_token`). A module given it runs once per copy.
    filled: Broadcast | None = None
    # Numbers copied per token, then made dense (`t.unsqueeze(-1).expand(b, f, n).reshape(b, -1)`),
    # or a tensor computed from such a copy alone, row by row (a cast, an op with numbers,
    # `torch.outer` with a frequency vector, a function of the module that does so): its rows
    # repeat per token (`copied`, the broadcast copied), so a module given it runs once per
    # copy. `rows`: it has a dim of features (after `torch.outer`); a concatenation with other
    # tensors along that dim would not repeat.
    copied: Broadcast | None = None
    rows: bool = False


@dataclass(frozen=True)
class Narrowed:
    """A broadcast tensor already narrowed on its stride-0 dims (the PR #10776 idiom)."""


@dataclass(eq=False)
class Sink:
    """One op that materializes a broadcast tensor at full logical size (semantics §1.2)."""

    node: cst.BaseExpression
    kind: str  # "elementwise" | "cast" | "copy"
    operands: tuple[tuple[cst.BaseExpression, Broadcast], ...]  # the broadcast operands
    scalars: tuple[cst.BaseExpression, ...]  # operands that are Python scalars or unknown names
    integer_result: bool  # bool/int result: sums of it are exact (semantics §0 rule 7)
    statement: cst.CSTNode | None = None  # the statement the sink is evaluated in
    reductions: list[cst.Call] = field(default_factory=list)  # reductions it flows into
    # The function that materializes the operand inside itself (`torch_ops.BOOL_MASK_ARGUMENTS`):
    # `node` is then the argument, and the call's result is not a copy of it.
    consumer: str | None = None


@dataclass(frozen=True)
class Derived:
    """A full-size tensor computed from broadcast inputs at `sinks`; `reduced` once a reduction
    has consumed it. `exact` is False when a merge mixed it with other values."""

    sinks: frozenset[Sink]
    reduced: bool = False
    exact: bool = True


@dataclass(frozen=True)
class KernelHandle:
    """A Triton kernel held in a value, however real wrappers reach it: a module kernel's name,
    an attribute naming one (`specs.get(...)._kernel`), a variable, a dict of kernels
    (`table=True`; indexing or `.get` picks one), a launcher (`k[grid]`, `launcher=True`),
    or `functools.partial` of a launcher (`bound` holds the arguments it fixes)."""

    kernels: frozenset[str]
    launcher: bool = False
    table: bool = False
    bound: tuple = ()  # (position or keyword, expr, value) fixed by functools.partial


@dataclass(frozen=True)
class ModuleRef:
    """A submodule of this module's classes held in a value (`self.norm`), or with `many` a
    `ModuleList` of them (`self.blocks`: iterating or indexing it gives one): calling one
    runs the method `callee` names (`Block.forward`; classes.py)."""

    callee: str
    many: bool = False


Value = Union[
    Broadcast, Scalar, NoTensor, Dense, Narrowed, Derived, KernelHandle, ModuleRef, None
]


def join(left: Value, right: Value) -> Value:
    """Merge the values a name may hold after two control-flow paths."""
    if left == right:
        return left
    if isinstance(left, NoTensor) or isinstance(right, NoTensor):
        return right if isinstance(left, NoTensor) else left
    if isinstance(left, Narrowed) or isinstance(right, Narrowed):
        # The idiom narrows conditionally (only dims that need it): narrowed wins.
        return Narrowed()
    if isinstance(left, Broadcast) and isinstance(right, Broadcast):
        evidence = left.evidence + tuple(e for e in right.evidence if e not in left.evidence)
        leading = None
        if left.leading is not None and right.leading is not None:
            leading = max(left.leading, right.leading)
        return Broadcast(
            min(left.state, right.state),
            evidence,
            left.local or right.local,
            left.small and right.small,
            left.grid and right.grid,
            leading=leading,
            per_token=left.per_token and right.per_token,
            repeated=left.always_repeats and right.always_repeats,
            rank=left.rank if left.rank == right.rank else None,
            weights=left.weights and right.weights,
        )
    if isinstance(left, Broadcast) or isinstance(right, Broadcast):
        broadcast = left if isinstance(left, Broadcast) else right
        other = right if broadcast is left else left
        if isinstance(other, Dense) and other.concatenated is not None:
            return _broadcast_or_concatenation(broadcast, other.concatenated)
        return Broadcast(
            State.POSSIBLE, broadcast.evidence, broadcast.local, broadcast.small, broadcast.grid,
            leading=broadcast.leading, per_token=broadcast.per_token, weights=broadcast.weights,
        )  # the other path's tensor may have any rank
    if isinstance(left, Dense) and isinstance(right, Dense):
        concatenated = None
        if left.concatenated is not None and right.concatenated is not None:
            concatenated = join(left.concatenated, right.concatenated)  # both paths concatenate
        filled = left.filled if left.filled == right.filled else None
        copied = None
        if left.copied is not None and right.copied is not None:
            copied = join(left.copied, right.copied)  # both paths copy per token
        return Dense(
            left.index and right.index, concatenated, filled,  # type: ignore[arg-type]
            copied, copied is not None and (left.rows or right.rows),  # type: ignore[arg-type]
        )
    if isinstance(left, KernelHandle) and isinstance(right, KernelHandle):
        if (left.launcher, left.table, left.bound) == (right.launcher, right.table, right.bound):
            return KernelHandle(left.kernels | right.kernels, left.launcher, left.table, left.bound)
        return None
    if isinstance(left, Derived) and isinstance(right, Derived):
        return Derived(left.sinks | right.sinks, left.reduced and right.reduced, False)
    if isinstance(left, Derived) or isinstance(right, Derived):
        derived = left if isinstance(left, Derived) else right
        return Derived(derived.sinks, derived.reduced, False)
    return None


def repeated_parts(value: Value) -> Broadcast | None:
    """The broadcast whose values `value` repeats: the broadcast itself, or a concatenation's
    joined parts (`Dense.concatenated`); None for any other value."""
    if isinstance(value, Broadcast):
        return value
    return value.concatenated if isinstance(value, Dense) else None


def _broadcast_or_concatenation(broadcast: Broadcast, parts: Broadcast) -> Broadcast:
    """A broadcast on one path, a concatenation of broadcasts (`parts`) on the other: possibly
    a stride-0 view, and repeated on both paths when the broadcast is sure to be one."""
    evidence = broadcast.evidence + tuple(e for e in parts.evidence if e not in broadcast.evidence)
    return Broadcast(
        State.POSSIBLE, evidence, broadcast.local, broadcast.small and parts.small,
        broadcast.grid and parts.grid, per_token=broadcast.per_token and parts.per_token,
        repeated=broadcast.always_repeats and parts.always_repeats,
        rank=broadcast.rank if broadcast.rank == parts.rank else None,
    )


def join_envs(left: dict[str, Value], right: dict[str, Value]) -> dict[str, Value]:
    merged = {}
    for name in left.keys() | right.keys():
        value = join(left.get(name), right.get(name))
        if value is not None:
            merged[name] = value
    return merged
