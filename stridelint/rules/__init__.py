"""The rule registry: the CLI, the docs generator and the tests all read ALL_RULES."""

from __future__ import annotations

from stridelint.rules.base import Rule
from stridelint.rules.sl101_reduce_of_materialized_broadcast import ReduceOfMaterializedBroadcast
from stridelint.rules.sl102_reduce_of_broadcast import ReduceOfBroadcast
from stridelint.rules.sl201_elementwise_after_expand import ElementwiseAfterExpand
from stridelint.rules.sl301_copy_of_broadcast import CopyOfBroadcast
from stridelint.rules.sl302_dense_copy_of_broadcast import DenseCopyOfBroadcast
from stridelint.rules.sl401_write_into_broadcast import WriteIntoBroadcast
from stridelint.rules.sl900_syntax_error import SyntaxErrorRule
from stridelint.rules.sl901_unused_suppression import UnusedSuppression

ALL_RULES: tuple[type[Rule], ...] = (
    ReduceOfMaterializedBroadcast,
    ReduceOfBroadcast,
    ElementwiseAfterExpand,
    CopyOfBroadcast,
    DenseCopyOfBroadcast,
    WriteIntoBroadcast,
    SyntaxErrorRule,
    UnusedSuppression,
)
RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
