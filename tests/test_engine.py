"""The engine's promises: fixes never break code, files are written atomically and keep
their bytes outside the edits, and one broken rule does not stop the others."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from stridelint import engine, rules
from stridelint.config import Config
from stridelint.engine import FixMode, check_file
from stridelint.findings import Applicability, Finding, Fix, Position
from stridelint.rules.base import Rule

FIXABLE = "import torch\n\n\ndef count(x, n):\n    e = x.expand(n, -1)\n    return (e != 0).sum()\n"
FIX = FixMode(apply=True)


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(root=tmp_path, source=None)


def test_fix_rewrites_the_file_and_keeps_its_mode(tmp_path, config):
    path = tmp_path / "m.py"
    path.write_text(FIXABLE)
    path.chmod(0o640)
    report = check_file(path, config, FIX)
    assert report.fixed_count == 1 and report.error is None
    assert "e_small = e[" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]  # no temporary file left behind


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.replace("\n", "\r\n").encode(),
        lambda text: b"\xef\xbb\xbf" + text.encode(),
        lambda text: ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + text).encode("latin-1"),
    ],
    ids=["crlf", "bom", "latin-1-cookie"],
)
def test_fix_keeps_encoding_bom_and_newlines(tmp_path, config, encode):
    path = tmp_path / "m.py"
    original = encode(FIXABLE)
    path.write_bytes(original)
    check_file(path, config, FIX)
    fixed = path.read_bytes()
    assert fixed != original
    header = original[: original.index(b"import torch")]  # BOM, cookie, comments
    assert fixed.startswith(header + b"import math")
    if b"\r\n" in original:
        assert b"\n" not in fixed.replace(b"\r\n", b"")
    if original.startswith(b"\xef\xbb\xbf"):
        assert fixed.startswith(b"\xef\xbb\xbf") and fixed.count(b"\xef\xbb\xbf") == 1
    if b"latin-1" in original:
        assert b"caf\xe9" in fixed


def test_a_read_only_file_is_reported_and_left_alone(tmp_path, config):
    path = tmp_path / "m.py"
    path.write_text(FIXABLE)
    path.chmod(0o444)
    report = check_file(path, config, FIX)
    assert "read-only" in (report.error or "")
    assert path.read_text() == FIXABLE


def test_write_refuses_a_file_changed_since_it_was_read(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"new content\n")
    with pytest.raises(engine.WriteError, match="changed on disk"):
        engine.write_atomically(path, b"old content\n", b"fixed\n")
    assert path.read_bytes() == b"new content\n"


def test_fix_writes_through_a_symlink(tmp_path, config):
    target = tmp_path / "real.py"
    target.write_text(FIXABLE)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    check_file(link, config, FIX)
    assert link.is_symlink()
    assert "e_small = e[" in target.read_text()


class _BreaksCode(Rule):
    """## What it does\nx\n## Why is this bad?\nx\n## Example\nx\n## Use instead\nx\n## Fix safety\nx\n"""

    code = "SL998"
    name = "breaks-code"
    summary = "Test rule whose fix is broken"

    def check(self, ctx):
        end = Position(1, 1)
        edit = ctx.source.edit(0, 0, "def (:\n")
        fix = Fix(Applicability.SAFE, "break it", (edit,))
        yield Finding(self.code, "bad", end, end, 1, (), fix)


class _Crashes(Rule):
    code = "SL997"
    name = "crashes"
    summary = "Test rule that raises"

    def check(self, ctx):
        raise ValueError("boom")


def test_a_fix_that_breaks_parsing_leaves_the_file_untouched(tmp_path, config, monkeypatch):
    monkeypatch.setattr(rules, "ALL_RULES", (_BreaksCode,))
    path = tmp_path / "m.py"
    path.write_text("x = y.expand(2)\n")
    report = check_file(path, config, FIX)
    assert path.read_text() == "x = y.expand(2)\n"
    assert report.fixed_count == 0
    assert any("invalid code" in message for message in report.internal_errors)


def test_a_crashing_rule_is_reported_and_the_others_still_run(tmp_path, config, monkeypatch):
    monkeypatch.setattr(rules, "ALL_RULES", (_Crashes, *rules.ALL_RULES))
    path = tmp_path / "m.py"
    path.write_text(FIXABLE)
    report = check_file(path, config, FixMode())
    assert report.internal_errors == ["internal error in SL997: ValueError: boom"]
    assert [f.code for f in report.findings] == ["SL101"]


def test_fixing_twice_changes_nothing_the_second_time(tmp_path, config):
    path = tmp_path / "m.py"
    path.write_text(FIXABLE)
    check_file(path, config, FIX)
    once = path.read_text()
    report = check_file(path, config, FIX)
    assert report.fixed_count == 0 and path.read_text() == once


def test_an_unfixable_rule_keeps_its_finding_and_loses_its_fix(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(FIXABLE)
    config = Config(root=tmp_path, source=None, unfixable=("SL101",))
    report = check_file(path, config, FIX)
    assert [f.code for f in report.findings] == ["SL101"]
    assert report.findings[0].fix is None
    assert report.fixed_count == 0 and path.read_text() == FIXABLE
    fixable = Config(root=tmp_path, source=None, fixable=("SL2",))
    assert check_file(path, fixable, FixMode()).findings[0].fix is None


def test_a_pooled_run_gives_the_serial_reports_and_leaves_the_collector_as_it_was(tmp_path, config):
    """Before forking its workers the engine freezes what exists out of the cycle collector's
    reach (engine._ready_to_fork): the reports are the serial run's, and nothing stays
    frozen after."""
    import gc

    for number in range(20):  # 20 >= 8 * 2: two jobs take the process pool
        (tmp_path / f"m{number:02}.py").write_text(FIXABLE if number % 3 == 0 else "x = 1\n")
    files = sorted(tmp_path.glob("*.py"))
    serial = engine.run_files(files, config, FixMode(), jobs=1, cache=None)
    pooled = engine.run_files(files, config, FixMode(), jobs=2, cache=None)
    assert [(r.path, r.findings) for r in pooled] == [(r.path, r.findings) for r in serial]
    assert sum(len(r.findings) for r in pooled) == 7
    assert gc.get_freeze_count() == 0


TWO_COUNTS = FIXABLE + "\n\ndef total(y, n):\n    f = y.expand(n, -1)\n    return (f > 0).sum()\n"


def test_fixes_that_add_the_same_import_and_helper_apply_in_one_round(
    tmp_path, config, monkeypatch
):
    """Each fix adds `import math` and the counting helper; made once, they do not make the
    fixes overlap, so one round applies both and a second finds nothing left."""
    rounds = []
    lint_text = engine.lint_text
    monkeypatch.setattr(engine, "lint_text", lambda *a: rounds.append(1) or lint_text(*a))
    path = tmp_path / "m.py"
    path.write_text(TWO_COUNTS)
    report = check_file(path, config, FIX)
    fixed = path.read_text()
    assert report.fixed_count == 2 and not report.findings
    assert len(rounds) == 2
    assert fixed.count("import math\n") == 1 and fixed.count("def _count_true(") == 1
    assert fixed.count("_count_true(") == 3
