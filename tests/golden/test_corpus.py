"""Every golden case: its findings, both fix outputs, and that the outputs are final.

Set STRIDELINT_UPDATE_GOLDEN=1 to rewrite the expected files from the current output, then
review the diff like any snapshot change.
"""

from __future__ import annotations

import os

import pytest

from stridelint.engine import lint_text
from stridelint.source import decode
from tests.golden.corpus import Case, cases, expectation_lines, fixed

UPDATE = os.environ.get("STRIDELINT_UPDATE_GOLDEN") == "1"
CASES = cases()


def _check_or_update(case: Case, suffix: str, actual: str | None) -> None:
    path = case.file(suffix)
    if UPDATE:
        if actual is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(actual, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8") if path.exists() else None
    assert actual == expected, f"{path.name} differs from the tool's output"


def test_the_corpus_is_not_empty():
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_findings_match_expect_file(case: Case):
    before = case.read(".before.py")
    lines = expectation_lines(before, case.config(), case.file(".before.py"))
    _check_or_update(case, ".expect", "".join(f"{line}\n" for line in lines))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixes_match_after_files(case: Case):
    before = case.read(".before.py")
    config, path = case.config(), case.file(".before.py")
    safe = fixed(before, config, path, unsafe=False)
    unsafe = fixed(before, config, path, unsafe=True)
    _check_or_update(case, ".after.py", safe if safe != before else None)
    _check_or_update(case, ".unsafe.py", unsafe if unsafe != safe else None)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixed_outputs_compile_relint_clean_and_are_idempotent(case: Case):
    config, path = case.config(), case.file(".before.py")
    for suffix, unsafe in ((".after.py", False), (".unsafe.py", True)):
        output = case.read(suffix)
        if output is None:
            continue
        compile(output, str(case.file(suffix)), "exec")
        findings = lint_text(decode(output.encode()), config, path).findings
        fixable = [f for f in findings if f.fix is not None and f.fix.applies_under(unsafe)]
        assert fixable == [], f"{suffix} still has fixable findings: {fixable}"
        assert fixed(output, config, path, unsafe=unsafe) == output, f"{suffix}: a second fix changed it"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_positive_cases_report_their_own_rule(case: Case):
    expect = case.read(".expect") or ""
    if case.read(".after.py") or case.read(".unsafe.py"):
        assert case.code in expect, "a case with a fix must report its rule"
