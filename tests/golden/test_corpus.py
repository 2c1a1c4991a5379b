"""Every golden case: its findings, both fix outputs, and that the outputs are final.

To update cases after an intended change, run `python -m tests.golden.regenerate [CASE_IDS...]`
(see tests/golden/regenerate.py), then review the diff like any snapshot change.
"""

from __future__ import annotations

import dataclasses
import io
import shutil

import pytest

from stridelint.engine import lint_text
from stridelint.findings import Applicability, Finding, Fix, Position
from stridelint.source import decode
from tests.golden import regenerate
from tests.golden.corpus import (
    OUTPUT_SUFFIXES,
    Case,
    cases,
    fixed,
    outputs,
    parse_expect_file,
    parse_expectation,
    render_finding,
)

CASES = cases()
_HOW = "run `python -m tests.golden.regenerate {id}` if the change is intended"


def test_the_corpus_is_not_empty():
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_findings_match_expect_file(case: Case):
    actual = outputs(case)[".expect"].decode("utf-8")
    expected = case.read_bytes(".expect")
    assert expected is not None, f"{case.name}.expect is missing; " + _HOW.format(id=case.id)
    # Line lists, so that pytest shows which finding differs.
    assert actual.splitlines() == expected.decode("utf-8").splitlines(), _HOW.format(id=case.id)
    assert actual.encode("utf-8") == expected, f"{case.name}.expect: same lines, other bytes"


LOW_SEVERITY_CASES = [case for case in CASES if case.config().low_severity]


def test_some_cases_show_low_severity_findings():
    assert len(LOW_SEVERITY_CASES) >= 2


@pytest.mark.parametrize("case", LOW_SEVERITY_CASES, ids=lambda c: c.id)
def test_without_the_setting_exactly_the_low_severity_findings_are_hidden(case: Case):
    """A case run with `low-severity = true` shows its low-severity findings; the same module
    with the setting off reports exactly the others (one case proves both settings)."""
    config, path = case.config(), case.file(".before.py")
    source = decode(path.read_bytes())
    shown = lint_text(source, config, path).findings
    hidden = lint_text(source, dataclasses.replace(config, low_severity=False), path).findings
    assert any(f.low for f in shown)
    assert [render_finding(f) for f in hidden] == [render_finding(f) for f in shown if not f.low]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixes_match_after_files(case: Case):
    expected = outputs(case)
    for suffix in (".after.py", ".unsafe.py"):
        on_disk = case.read_bytes(suffix)
        assert expected[suffix] == on_disk, (
            f"{case.name}{suffix} differs from the tool's output; " + _HOW.format(id=case.id)
        )


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
        again = fixed(output, config, path, unsafe=unsafe)
        assert again == output, f"{suffix}: a second fix changed it"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_expect_file_is_well_formed(case: Case):
    """Every line parses back to its fields, in the engine's order (position, then code)."""
    text = case.read(".expect")
    assert text is not None, f"{case.name}.expect is missing"
    expectations = parse_expect_file(text)
    keys = [(e.row, e.column, e.code) for e in expectations]
    assert keys == sorted(keys)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_pinned_applicability_agrees_with_the_fix_outputs(case: Case):
    """The fixpoint's first round applies only fixes of the findings in `.expect`: the safe
    output differs from the input only if one of them is `[safe]`, and any fixed output needs
    one with a fix that may apply (later rounds may add fixes of their own). A case with a fix
    must report its own rule."""
    expectations = parse_expect_file(case.read(".expect") or "")
    applicabilities = {e.applicability for e in expectations}
    if case.file(".after.py").exists():
        assert "safe" in applicabilities, ".after.py exists, but no finding has a safe fix"
    if case.file(".unsafe.py").exists():
        assert applicabilities & {"safe", "unsafe"}, ".unsafe.py exists, but no finding has a fix"
    if case.file(".after.py").exists() or case.file(".unsafe.py").exists():
        assert case.code in {e.code for e in expectations}, "a case with a fix must report its rule"


# ---- the format itself ----------------------------------------------------------------------


def _finding(message: str, fix: Fix | None) -> Finding:
    return Finding("SL101", message, Position(4, 13), Position(4, 20), 4, (), fix)


@pytest.mark.parametrize(
    ("applicability", "shown"),
    [(Applicability.SAFE, "safe"), (Applicability.UNSAFE, "unsafe"),
     (Applicability.DISPLAY, "display"), (None, "none")],
)  # fmt: skip
def test_a_line_pins_position_code_applicability_and_message(applicability, shown):
    fix = None if applicability is None else Fix(applicability, "narrow", ())
    line = render_finding(_finding("`e != 0` materializes `e`", fix))
    assert line == f"4:13 SL101 [{shown}] `e != 0` materializes `e`"
    parsed = parse_expectation(line)
    assert (parsed.row, parsed.column, parsed.code, parsed.applicability, parsed.message) == (
        4, 13, "SL101", shown, "`e != 0` materializes `e`",
    )


@pytest.mark.parametrize("message", ["two\nlines", "a \\n that is literal", "cr\r\\", "\\", ""])
def test_messages_stay_on_one_line_and_read_back_exactly(message):
    line = render_finding(_finding(message, None))
    assert "\n" not in line and "\r" not in line
    assert parse_expectation(line).message == message


@pytest.mark.parametrize(
    "line",
    ["4:13 SL101", "4:13 SL101 [maybe] msg", "0:1 SL101 [none] msg", "4:13 SL101 [safe]",
     "4:13 SL101 [none] bad \\x escape", "4:13 SL101 [none] trailing \\", "4:13 SL1 [none] m"],
)  # fmt: skip
def test_malformed_lines_are_rejected(line):
    with pytest.raises(ValueError):
        parse_expectation(line)


def test_an_expect_file_ends_with_a_newline():
    with pytest.raises(ValueError):
        parse_expect_file("4:13 SL101 [none] m")
    assert parse_expect_file("") == []


# ---- the regeneration tool ------------------------------------------------------------------


def _copy(case: Case, tmp_path) -> Case:
    folder = tmp_path / "fixes" / case.code
    folder.mkdir(parents=True)
    for suffix in (".before.py", ".toml", *OUTPUT_SUFFIXES):
        if case.file(suffix).exists():
            shutil.copyfile(case.file(suffix), folder / f"{case.name}{suffix}")
    return Case(case.code, case.name, folder)


def _case_with_both_outputs() -> Case:
    return next(c for c in CASES if c.file(".after.py").exists() and c.file(".unsafe.py").exists())


def test_regenerate_restores_every_output_and_reports_each_change(tmp_path):
    case = _copy(_case_with_both_outputs(), tmp_path)
    originals = {suffix: case.read_bytes(suffix) for suffix in OUTPUT_SUFFIXES}
    case.file(".expect").write_text("1:1 SL101 [none] stale\n")
    case.file(".after.py").unlink()
    case.file(".unsafe.py").write_bytes(case.read_bytes(".before.py"))
    stray = Case(case.code, "negative", case.folder)  # no finding, no fix: only an empty .expect
    stray.file(".before.py").write_text("x = 1\n")
    stray.file(".after.py").write_text("x = 2\n")

    out = io.StringIO()
    changes = regenerate.regenerate([case, stray], out=out, root=tmp_path)

    assert {suffix: case.read_bytes(suffix) for suffix in OUTPUT_SUFFIXES} == originals
    assert stray.read_bytes(".expect") == b"" and not stray.file(".after.py").exists()
    assert sorted((c.status, c.path.name) for c in changes) == sorted([
        ("M", f"{case.name}.expect"), ("A", f"{case.name}.after.py"),
        ("M", f"{case.name}.unsafe.py"), ("A", "negative.expect"), ("D", "negative.after.py"),
    ])  # fmt: skip
    report = out.getvalue()
    assert f"A fixes/{case.code}/{case.name}.after.py" in report
    assert f"D fixes/{case.code}/negative.after.py" in report
    assert report.endswith("5 file(s) in 2 of 2 case(s) changed.\n")
    # A second run finds nothing to do.
    assert regenerate.regenerate([case, stray], out=io.StringIO(), root=tmp_path) == []


def test_regenerate_check_mode_writes_nothing(tmp_path):
    case = _copy(_case_with_both_outputs(), tmp_path)
    case.file(".expect").write_text("stale\n")
    out = io.StringIO()
    [change] = regenerate.regenerate([case], write=False, show_diff=True, out=out, root=tmp_path)
    assert change.status == "M" and case.read(".expect") == "stale\n"
    assert "-stale\n" in out.getvalue() and "would change" in out.getvalue()


def test_regenerate_selects_cases_by_id_code_and_pattern():
    some = CASES[0]
    assert regenerate.select(CASES, [some.id]) == [some]
    assert regenerate.select(CASES, [some.code]) == [c for c in CASES if c.code == some.code]
    assert regenerate.select(CASES, [f"{some.code}/*"]) == [c for c in CASES if c.code == some.code]
    assert regenerate.select(CASES, []) == CASES
    with pytest.raises(ValueError, match="SL101/no_such_case"):
        regenerate.select(CASES, [some.id, "SL101/no_such_case"])
