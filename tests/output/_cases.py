"""Reports built by the real engine, for the format tests that must see real evidence chains."""

from __future__ import annotations

from pathlib import Path

from stridelint.config import Config
from stridelint.engine import lint_text
from stridelint.findings import FileReport, Position
from stridelint.rules import RULES_BY_CODE
from stridelint.source import SourceText

RULES = RULES_BY_CODE

# A wrapper passes an expanded mask to a kernel; the kernel's launch-metadata hook counts it.
# The evidence runs: docstring -> `expand_as` -> the launch -> `Mask != 0` in the hook.
HOOK_SOURCE = '''\
import triton


def reduce_launch_metadata(grid, kernel, args):
    Mask = args["Mask"]
    nonzero = Mask != 0
    return {"loads": nonzero.sum()}


@triton.jit(launch_metadata=reduce_launch_metadata)
def _masked_reduce(X, Mask):
    pass


def masked_reduce(x, mask):
    """Reduce `x` where `mask` is set.

    Args:
        mask: broadcastable to `x`.
    """
    mask = mask.expand_as(x)
    _masked_reduce[(1,)](x, mask)
'''

# SL901 (an unused suppression): a finding with no evidence and no fix.
UNUSED_NOQA_SOURCE = "x = 1  # noqa: SL101\n"


def engine_report(source: str, path: str = "pkg/hook.py", tmp: Path | None = None) -> FileReport:
    config = Config(root=tmp or Path.cwd(), source=None)
    result = lint_text(SourceText(source), config, Path(path))
    assert not result.internal_errors, result.internal_errors
    return FileReport(path, source, result.findings)


def position_of(source: str, text: str) -> Position:
    """The 1-based row and column where `text` first occurs."""
    offset = source.index(text)
    before = source[:offset]
    return Position(before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1)
