"""SL901: stridelint codes in a suppression that nothing on the line needs."""

from pathlib import Path

from stridelint.config import Config
from stridelint.engine import lint_text
from stridelint.source import decode

SOURCE = """import torch


def f(x, n):
    e = x.expand(n, -1)
    a = (e != 0).sum()  # noqa: SL101
    b = (e != 0).sum()  # noqa: SL102, E501
    c = 1  # noqa: SL201
    d = 2  # noqa
    return a, b, c, d
"""


def _codes(config: Config) -> list[str]:
    findings = lint_text(decode(SOURCE.encode()), config, Path("m.py")).findings
    return [f"{f.start.row}:{f.code}" for f in findings]


def test_only_stridelint_codes_with_nothing_to_suppress_are_reported():
    codes = _codes(Config(root=Path("."), source=None))
    assert "6:SL901" not in codes  # used
    assert codes.count("7:SL901") == 1 and "7:SL101" in codes  # SL102 unused, SL101 still reported
    assert "8:SL901" in codes  # nothing on the line
    assert "9:SL901" not in codes  # a bare noqa may be for another tool


def test_a_disabled_rule_code_is_not_unused():
    codes = _codes(Config(root=Path("."), source=None).with_overrides(ignore=("SL2", "SL102")))
    assert "8:SL901" not in codes and "7:SL901" not in codes


def test_files_the_prefilter_skips_still_report_stale_suppressions():
    source = decode(b"x = 1  # noqa: SL101\n")
    findings = lint_text(source, Config(root=Path("."), source=None), Path("m.py")).findings
    assert [(f.code, f.start.column) for f in findings] == [("SL901", 8)]


def test_a_file_without_findings_reads_its_comments_for_any_spelling_of_a_code():
    """The engine skips reading the comments of a file without findings unless one may name
    a stridelint code; the comments read codes upper-cased, so `ſl101` is SL101."""
    source = decode("x = 1  # noqa: \u017fl101, e501\n".encode())
    findings = lint_text(source, Config(root=Path("."), source=None), Path("m.py")).findings
    assert [(f.code, f.message) for f in findings] == [
        ("SL901", "Unused suppression of SL101: nothing to suppress on this line")
    ]


LOW_SEVERITY_SOURCE = """import torch


def grid(positions, batch):
    kept = positions[None, :].expand(batch, -1).clone()  # noqa: SL302
    other = positions[None, :].expand(batch, -1).clone()
    return kept, other
"""


def _low_severity_codes(config: Config) -> list[str]:
    findings = lint_text(decode(LOW_SEVERITY_SOURCE.encode()), config, Path("m.py")).findings
    return [f"{f.start.row}:{f.code}" for f in findings]


def test_a_suppression_of_a_hidden_low_severity_finding_is_still_used():
    hidden = _low_severity_codes(Config(root=Path("."), source=None))
    assert hidden == []  # both copies escape: low severity, hidden by default, noqa used
    shown = _low_severity_codes(Config(root=Path("."), source=None, low_severity=True))
    assert shown == ["6:SL302"]  # the suppressed one stays suppressed
