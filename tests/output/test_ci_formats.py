"""The `junit`, `gitlab` and `pylint` formats: what CI servers, GitLab merge requests and
Pylint-speaking tools read, checked on reports the real engine produced."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from xml.etree import ElementTree as ET

import pytest

from stridelint.findings import FileReport, Finding, Position
from stridelint.output import FORMATS, RenderOptions, render
from tests.output._cases import HOOK_SOURCE, RULES, UNUSED_NOQA_SOURCE, engine_report, position_of

PLAIN = RenderOptions()


def reports() -> list[FileReport]:
    return [
        engine_report(HOOK_SOURCE, "pkg/hook.py"),
        engine_report("x = 1\n", "pkg/clean.py"),
        engine_report(UNUSED_NOQA_SOURCE, "pkg/noqa.py"),
        FileReport("pkg/broken.py", "", error="could not be read"),
    ]


def all_findings(items: list[FileReport]) -> list[tuple[str, Finding]]:
    return [(r.path, f) for r in items if r.error is None for f in r.findings]


def test_the_new_formats_are_offered():
    assert {"junit", "gitlab", "pylint"} <= set(FORMATS)


# --- pylint ------------------------------------------------------------------------------


def test_pylint_prints_path_row_code_and_message_per_finding():
    items = reports()
    lines = render("pylint", items, RULES, PLAIN).splitlines()
    expected = [f"{path}:{f.start.row}: [{f.code}] {f.message}" for path, f in all_findings(items)]
    assert lines == expected and len(lines) >= 2
    hook_row = position_of(HOOK_SOURCE, "Mask != 0").row
    assert lines[0].startswith(f"pkg/hook.py:{hook_row}: [SL101] `Mask != 0` materializes")


def test_pylint_keeps_one_finding_on_one_line_and_nothing_for_no_findings():
    odd = Finding("SL301", "a copy\nof `m`", Position(2, 1), Position(2, 3), noqa_row=2)
    text = render("pylint", [FileReport("a.py", "", [odd])], RULES, PLAIN)
    assert text == "a.py:2: [SL301] a copy of `m`\n"
    assert render("pylint", [engine_report("x = 1\n")], RULES, PLAIN) == ""


# --- junit -------------------------------------------------------------------------------


def test_junit_has_a_suite_per_checked_file_and_a_failed_case_per_finding():
    items = reports()
    root = ET.fromstring(render("junit", items, RULES, PLAIN))
    assert root.tag == "testsuites" and root.get("name") == "stridelint"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["pkg/hook.py", "pkg/clean.py", "pkg/noqa.py"]
    found = all_findings(items)
    assert root.get("failures") == str(len(found))
    assert root.get("tests") == str(len(found) + 1)  # + the clean file's passing case
    failures = root.findall("./testsuite/testcase/failure")
    assert [(f.get("type"), f.get("message")) for f in failures] == [
        (finding.code, finding.message) for _, finding in found
    ]
    (clean_case,) = suites[1].findall("testcase")
    assert clean_case.find("failure") is None and suites[1].get("failures") == "0"


def test_junit_failure_names_the_location_evidence_and_fix():
    items = [engine_report(HOOK_SOURCE, "pkg/hook.py")]
    case = ET.fromstring(render("junit", items, RULES, PLAIN)).find("./testsuite/testcase")
    (finding,) = [f for f in items[0].findings if f.code == "SL101"]
    row, column = finding.start.row, finding.start.column
    assert case.get("name") == f"SL101 at {row}:{column}"
    assert (case.get("classname"), case.get("file"), case.get("line")) == (
        "pkg/hook.py", "pkg/hook.py", str(row))
    body = case.find("failure").text.splitlines()
    assert body[0] == f"pkg/hook.py:{row}:{column}: SL101 {finding.message}"
    assert body[1:-1] == [
        f"why: {e.message} (pkg/hook.py:{e.position.row}:{e.position.column})"
        for e in finding.evidence
    ]
    assert body[-1] == f"fix (safe): {finding.fix.message}"


def test_junit_escapes_markup_and_drops_characters_xml_cannot_hold():
    nasty = Finding("SL301", 'copy of `a<b & "c"`\x01\x1b', Position(1, 1), Position(1, 2),
                    noqa_row=1)
    text = render("junit", [FileReport("a&b<c>.py", "", [nasty])], RULES, PLAIN)
    failure = ET.fromstring(text).find("./testsuite/testcase/failure")
    assert failure.get("message") == 'copy of `a<b & "c"`\ufffd\ufffd'
    assert ET.fromstring(text).find("testsuite").get("name") == "a&b<c>.py"


def test_junit_without_files_is_an_empty_valid_document():
    root = ET.fromstring(render("junit", [], RULES, PLAIN))
    assert (root.get("tests"), root.get("failures"), list(root)) == ("0", "0", [])


# --- gitlab ------------------------------------------------------------------------------


SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def test_gitlab_issues_carry_what_code_quality_requires(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    items = reports()
    issues = json.loads(render("gitlab", items, RULES, PLAIN))
    found = all_findings(items)
    assert len(issues) == len(found)
    for issue, (path, finding) in zip(issues, found):
        assert issue["check_name"] == finding.code
        assert issue["description"] == f"{finding.code}: {finding.message}"
        assert issue["severity"] in SEVERITIES
        assert issue["location"] == {
            "path": path,
            "lines": {"begin": finding.start.row, "end": finding.end.row},
        }
        assert len(issue["fingerprint"]) == 64
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)


def test_gitlab_severity_follows_the_rule():
    error = Finding("SL401", "write", Position(1, 1), Position(1, 2), noqa_row=1)
    warning = Finding("SL301", "copy", Position(2, 1), Position(2, 2), noqa_row=2)
    unknown = Finding("SL999", "tool error", Position(3, 1), Position(3, 2), noqa_row=3)
    issues = json.loads(render("gitlab", [FileReport("a.py", "", [error, warning, unknown])],
                               RULES, PLAIN))
    assert [i["severity"] for i in issues] == ["major", "minor", "major"]


def test_gitlab_fingerprints_survive_moves_and_tell_twins_apart():
    twin = Finding("SL301", "copy", Position(1, 1), Position(1, 2), noqa_row=1)
    moved = dataclasses.replace(twin, start=Position(9, 4), end=Position(9, 6), noqa_row=9)
    first = json.loads(render("gitlab", [FileReport("a.py", "", [twin, twin])], RULES, PLAIN))
    later = json.loads(render("gitlab", [FileReport("a.py", "", [moved, twin])], RULES, PLAIN))
    assert first[0]["fingerprint"] != first[1]["fingerprint"]
    assert [i["fingerprint"] for i in first] == [i["fingerprint"] for i in later]
    other = json.loads(render("gitlab", [FileReport("b.py", "", [twin])], RULES, PLAIN))
    assert other[0]["fingerprint"] != first[0]["fingerprint"]


def test_gitlab_paths_are_relative_to_the_project_dir(monkeypatch, tmp_path):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    monkeypatch.chdir(project / "src")
    monkeypatch.setenv("CI_PROJECT_DIR", str(project))
    finding = Finding("SL301", "copy", Position(1, 1), Position(1, 2), noqa_row=1)
    outside = tmp_path / "elsewhere.py"
    items = [FileReport(name, "", [finding])
             for name in ("ops.py", str(project / "pkg" / "a.py"), "./sub/../b.py", str(outside))]
    paths = [i["location"]["path"] for i in json.loads(render("gitlab", items, RULES, PLAIN))]
    assert paths == ["src/ops.py", "pkg/a.py", "src/b.py", outside.as_posix()]


def test_gitlab_without_findings_is_an_empty_array():
    assert json.loads(render("gitlab", [engine_report("x = 1\n")], RULES, PLAIN)) == []


# --- through the command line ------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["junit", "gitlab", "pylint"])
def test_check_prints_the_format_and_keeps_the_exit_status(tmp_path, fmt):
    (tmp_path / "hook.py").write_text(HOOK_SOURCE)
    result = subprocess.run(
        [sys.executable, "-m", "stridelint", "check", "--no-cache", "--output-format", fmt, "."],
        cwd=tmp_path, capture_output=True, text=True,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "CI_PROJECT_DIR": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    row = position_of(HOOK_SOURCE, "Mask != 0").row
    if fmt == "pylint":
        assert result.stdout.startswith(f"hook.py:{row}: [SL101] ")
    elif fmt == "junit":
        case = ET.fromstring(result.stdout).find("./testsuite/testcase")
        assert case.get("line") == str(row) and case.find("failure").get("type") == "SL101"
    else:
        (issue,) = json.loads(result.stdout)
        assert issue["location"] == {"path": "hook.py", "lines": {"begin": row, "end": row}}
    assert "Found" not in result.stdout  # tool formats carry no human summary


def test_no_python_files_still_gives_tools_a_document(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    command = [sys.executable, "-m", "stridelint", "check", "--no-cache", "--output-format"]
    junit = subprocess.run([*command, "junit", "."], cwd=tmp_path, capture_output=True,
                           text=True, env=env)
    gitlab = subprocess.run([*command, "gitlab", "."], cwd=tmp_path, capture_output=True,
                            text=True, env=env)
    assert junit.returncode == gitlab.returncode == 0
    assert ET.fromstring(junit.stdout).get("tests") == "0"
    assert json.loads(gitlab.stdout) == []
