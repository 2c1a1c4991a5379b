"""Which function names say a function is a reference (test-oracle) implementation.

Kept apart from the analysis (no LibCST import) so that the text screen, which runs before any
LibCST parse, reads the same names the analysis does.
"""

from __future__ import annotations

import re

_REFERENCE_NAME = re.compile(r"(?:^|_)(?:ref|reference|naive|oracle)(?:_|$)")


def names_a_reference(name: str) -> bool:
    """`naive_attn`, `_routing_reference`, `ref_gemm`, `oracle`: code written for clarity, to
    check a kernel against."""
    return _REFERENCE_NAME.search(name.lower()) is not None
