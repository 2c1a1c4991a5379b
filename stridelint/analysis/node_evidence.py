"""Evidence about one node of a parsed module, whose text and position are read when asked.

Every broadcast source the dataflow meets carries evidence quoting its code at its position,
yet only the few that reach a finding are ever shown; a position costs a code generation of
the statement (positions.py), the largest part of analysing a kept file. So the evidence
keeps the node and reads its snippet and position on first use. It equals what the eager
evidence would: the same node (and wording) in the same module is equal at once, anything
else is compared by message and position as Evidence is (two nodes may share both: an
expand of an expand starts where its operand does, and a long snippet is cut), so the
dataflow's joins and fixpoints see the same values as before. Pickled or copied, it becomes
a plain Evidence: a worker hands its findings back without the tree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stridelint.findings import Evidence, Position

if TYPE_CHECKING:  # only named: the rules' helpers import this without a parser
    import libcst as cst

    from stridelint.analysis.module import ModuleFacts


class NodeEvidence(Evidence):
    """`template` with `{}` standing for the node's snippet (ModuleFacts.snippet); with
    `quotes=False`, the message as it is, at the node (the parameter evidence)."""

    def __init__(
        self, facts: ModuleFacts, node: cst.CSTNode, template: str, *, quotes: bool = True
    ) -> None:
        object.__setattr__(self, "_facts", facts)
        object.__setattr__(self, "_node", node)
        object.__setattr__(self, "_template", template)
        object.__setattr__(self, "_quotes", quotes)
        object.__setattr__(self, "_read", None)

    def _text_and_position(self) -> tuple[str, Position]:
        read = self._read
        if read is None:
            message = self._template
            if self._quotes:
                message = message.format(self._facts.snippet(self._node))
            read = (message, self._facts.position(self._node))
            object.__setattr__(self, "_read", read)
        return read

    @property  # type: ignore[override]
    def message(self) -> str:
        return self._text_and_position()[0]

    @property  # type: ignore[override]
    def position(self) -> Position:
        return self._text_and_position()[1]

    def __eq__(self, other: object) -> bool:
        if (
            isinstance(other, NodeEvidence)
            and other._node is self._node
            and other._facts is self._facts
            and other._template == self._template
            and other._quotes == self._quotes
        ):
            return True
        if isinstance(other, Evidence):
            return self._text_and_position() == (other.message, other.position)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._text_and_position())

    def __reduce__(self) -> tuple[type, tuple[str, Position]]:
        return Evidence, self._text_and_position()


def read_now(evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """Plain evidence, read from the tree now: a finding outlives its file's tree and must
    not keep it alive (a run holds every file's findings until it prints them)."""
    return tuple(e if type(e) is Evidence else Evidence(e.message, e.position) for e in evidence)
