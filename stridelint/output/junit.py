"""JUnit XML: CI servers (Jenkins, GitLab, Azure Pipelines, CircleCI) show each finding as a
failed test case, each checked file as a test suite, and a clean file as one passing case."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from xml.etree import ElementTree as ET

if TYPE_CHECKING:
    from stridelint.findings import Finding
    from stridelint.output import CheckedFile, RenderOptions

# XML 1.0 cannot carry most control characters, even escaped; a snippet of odd source may.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _failure_body(path: str, finding: Finding) -> str:
    lines = [f"{path}:{finding.start.row}:{finding.start.column}: {finding.code} {finding.message}"]
    lines += [
        f"why: {evidence.message} ({path}:{evidence.position.row}:{evidence.position.column})"
        for evidence in finding.evidence
    ]
    if finding.fix is not None:
        lines.append(f"fix ({finding.fix.applicability.value}): {finding.fix.message}")
    return _text("\n".join(lines))


def _suite(path: str, findings: Sequence[Finding]) -> ET.Element:
    suite = ET.Element("testsuite", name=_text(path), tests=str(max(1, len(findings))),
                       failures=str(len(findings)), errors="0", skipped="0")
    if not findings:
        ET.SubElement(suite, "testcase", name="no findings", classname=_text(path),
                      file=_text(path))
    for finding in findings:
        # The name is what CI keeps a history by: the code and where it is.
        case = ET.SubElement(
            suite, "testcase",
            name=f"{finding.code} at {finding.start.row}:{finding.start.column}",
            classname=_text(path), file=_text(path), line=str(finding.start.row),
        )  # fmt: skip
        failure = ET.SubElement(case, "failure", message=_text(finding.message), type=finding.code)
        failure.text = _failure_body(path, finding)
    return suite


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, Any], options: RenderOptions
) -> str:
    suites = [_suite(report.path, findings) for report, findings in files]
    root = ET.Element(
        "testsuites", name="stridelint",
        tests=str(sum(int(s.get("tests", "0")) for s in suites)),
        failures=str(sum(len(findings) for _, findings in files)), errors="0",
    )  # fmt: skip
    root.extend(suites)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
