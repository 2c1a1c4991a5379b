"""SL901 checks stridelint's own codes only: other linters' codes that start with `SL`
(Ruff's `SLF001`, `SLOT000`) are theirs to judge."""

from pathlib import Path

from stridelint.config import Config
from stridelint.engine import lint_text
from stridelint.source import decode

SOURCE = """import torch


def f(cache, x):
    a = cache._match_dtype(x)  # noqa: SLF001
    b = 1  # noqa: SLOT000, SL201
    c = 2  # noqa: SL201
    return a, b, c
"""


def test_codes_of_other_linters_that_start_with_sl_are_left_alone():
    findings = lint_text(decode(SOURCE.encode()), Config(root=Path("."), source=None), Path("m.py"))
    unused = {f.start.row: f.message for f in findings.findings if f.code == "SL901"}
    assert 5 not in unused
    assert "SL201" in unused[6] and "SLOT000" not in unused[6]
    assert "SL201" in unused[7]
