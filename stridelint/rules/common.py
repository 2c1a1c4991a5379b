"""Pieces the rules share: scope filtering, evidence lists, and the one constructor of a
Finding (span, suppression row, evidence). How a message names things is wording.py's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from stridelint.analysis.node_evidence import read_now
from stridelint.analysis.values import Broadcast, State
from stridelint.findings import Evidence, Finding, Fix
from stridelint.lazy import lazy_import

if TYPE_CHECKING:
    import libcst as cst

    from stridelint.analysis.dataflow import FunctionFlow
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.uses import Use

uses = lazy_import("stridelint.analysis.uses")


def strongest(values: Iterable[Broadcast]) -> Broadcast:
    """One Broadcast summing up several operands: the strongest state, all the evidence."""
    values = list(values)
    evidence: list[Evidence] = []
    for value in values:
        evidence.extend(e for e in value.evidence if e not in evidence)
    return Broadcast(
        max(v.state for v in values),
        tuple(evidence),
        any(v.local for v in values),
        all(v.small for v in values),
        all(v.grid for v in values),
        repeated=any(v.repeated for v in values),
        weights=all(v.weights for v in values),
    )


def reported(
    facts: ModuleFacts,
    flow: FunctionFlow,
    value: Broadcast,
    scope: str,
) -> bool:
    """DEFINITE findings everywhere; POSSIBLE ones only in kernel-wrapper scope, unless the
    function itself broadcasts the tensor on some path (an `expand` in one branch). Small
    broadcasts and position grids are reported too, as low-severity findings (`low_reason`)."""
    return value.state is State.DEFINITE or value.local or facts.in_scope(flow.func, scope)


def output_sized(flow: FunctionFlow, result_uses: list[Use]) -> str | None:
    """A low-severity reason when every use of a materialized broadcast costs as much as the
    materialization (uses.is_output_sized), else None."""
    if result_uses and all(uses.is_output_sized(flow, use) for use in result_uses):
        return "output-sized: the next op reads or writes that many elements anyway"
    return None


def all_joined(facts: ModuleFacts, result_uses: list[Use]) -> bool:
    """Every use is `torch.cat`/`torch.stack`, which writes the tensor at its size anyway."""
    return bool(result_uses) and all(uses.is_joined(facts, use) for use in result_uses)


def low_reason(value: Broadcast) -> str | None:
    """Why a finding on `value` is low severity (its materialization is small), or None."""
    if value.small:
        return (
            "the broadcast is small or on the host (one dim, a few literal repeats, per-step "
            "dims only, a small matrix a position, timesteps, or moved to the CPU)"
        )
    if value.grid:
        return "it is a position grid, small beside the activations"
    return None


def finding(
    code: str,
    facts: ModuleFacts,
    node: cst.CSTNode,
    statement: cst.CSTNode | None,
    message: str,
    value: Broadcast,
    fix: Fix | None = None,
    *,
    low: str | None = None,
    any_size: bool = False,
) -> Finding:
    """A finding spanning `node`, suppressible on its statement's first row. A low-severity
    one (a small broadcast, unless the rule is wrong at `any_size`, or the rule's own reason
    `low`) is reported only with the `low-severity` setting, and its message says why, once."""
    reason = (
        (None if any_size else low_reason(value))
        or low
        or _reference_reason(facts, node)
        or _memoized_reason(facts, node, statement)
    )
    if reason is not None:
        message += f" (low severity: {reason})"
    start, end = facts.span(node)
    return Finding(
        code,
        message,
        facts.source.position(start),
        facts.source.position(end),
        noqa_row(facts, node, statement),
        read_now(value.evidence),
        fix,
        reason is not None,
    )


def _reference_reason(facts: ModuleFacts, node: cst.CSTNode) -> str | None:
    name = facts.reference_function(node)
    return f"in `{name}`, a reference implementation" if name is not None else None


def _memoized_reason(
    facts: ModuleFacts, node: cst.CSTNode, statement: cst.CSTNode | None
) -> str | None:
    name = facts.memoized_function(node, statement)
    if name is None:
        return None
    return f"`{name}` returns a value cached on `self` before it: this runs once per cache key"


def noqa_row(facts: ModuleFacts, node: cst.CSTNode, statement: cst.CSTNode | None) -> int:
    """Suppressions go on the first row of the statement (or compound header) holding the node."""
    return facts.position(statement if statement is not None else node).row
