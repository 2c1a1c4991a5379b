"""SARIF carries each finding's evidence chain: `relatedLocations` and a `codeFlows` path from
where the broadcast begins to the op that materializes it, valid against SARIF 2.1.0."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft4Validator
from referencing import Registry

from stridelint.output import RenderOptions, render
from tests.output._cases import HOOK_SOURCE, RULES, UNUSED_NOQA_SOURCE, engine_report, position_of

SARIF_SCHEMA = Path(__file__).parent.parent / "data" / "sarif-2.1.0.json"


def sarif(*reports) -> dict:
    return json.loads(render("sarif", list(reports), RULES, RenderOptions()))


def schema_errors(log: dict) -> list[str]:
    # The schema is draft-04; an empty registry makes a remote $ref fail instead of fetching.
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = Draft4Validator(schema, registry=Registry())
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]


def only_result(log: dict, code: str) -> dict:
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == code]
    return result


def step_region(step: dict) -> tuple[int, int]:
    region = step["location"]["physicalLocation"]["region"]
    return region["startLine"], region["startColumn"]


def test_code_flow_runs_from_the_docstring_through_the_expand_and_launch_to_the_hook():
    report = engine_report(HOOK_SOURCE)
    log = sarif(report)
    assert schema_errors(log) == []
    result = only_result(log, "SL101")
    (flow,) = result["codeFlows"]
    (thread,) = flow["threadFlows"]
    steps = thread["locations"]
    expected = [
        position_of(HOOK_SOURCE, '"""Reduce'),
        position_of(HOOK_SOURCE, "mask.expand_as(x)"),
        position_of(HOOK_SOURCE, "_masked_reduce[(1,)]"),
        position_of(HOOK_SOURCE, "Mask != 0"),
    ]
    assert [step_region(s) for s in steps] == [(p.row, p.column) for p in expected]
    messages = [s["location"]["message"]["text"] for s in steps]
    assert "docstring" in messages[0]
    assert "`mask.expand_as(x)` makes a stride-0 view" in messages[1]
    assert "launches `_masked_reduce`" in messages[2] and "as `Mask`" in messages[2]
    assert messages[3] == result["message"]["text"]
    assert [s["executionOrder"] for s in steps] == [1, 2, 3, 4]
    assert steps[0]["importance"] == steps[-1]["importance"] == "essential"
    assert all("importance" not in s for s in steps[1:-1])
    uris = {s["location"]["physicalLocation"]["artifactLocation"]["uri"] for s in steps}
    assert uris == {"pkg/hook.py"}


def test_the_last_step_spans_the_finding_and_related_locations_keep_the_evidence_order():
    report = engine_report(HOOK_SOURCE)
    (finding,) = [f for f in report.findings if f.code == "SL101"]
    result = only_result(sarif(report), "SL101")
    last = result["codeFlows"][0]["threadFlows"][0]["locations"][-1]
    assert last["location"]["physicalLocation"]["region"] == result["locations"][0][
        "physicalLocation"]["region"]
    related = result["relatedLocations"]
    assert [r["id"] for r in related] == list(range(len(finding.evidence)))
    assert [r["message"]["text"] for r in related] == [e.message for e in finding.evidence]
    # The flow is the same evidence, read from the source of the broadcast onwards.
    flow_messages = [s["location"]["message"]["text"]
                     for s in result["codeFlows"][0]["threadFlows"][0]["locations"][:-1]]
    assert flow_messages == [e.message for e in reversed(finding.evidence)]


def test_a_finding_without_evidence_has_no_flow():
    report = engine_report(UNUSED_NOQA_SOURCE)
    log = sarif(report)
    assert schema_errors(log) == []
    result = only_result(log, "SL901")
    assert "codeFlows" not in result and "relatedLocations" not in result


def test_the_schema_check_would_catch_a_malformed_flow():
    log = sarif(engine_report(HOOK_SOURCE))
    flow = only_result(log, "SL101")["codeFlows"][0]
    flow["threadFlows"][0]["locations"][0]["executionOrder"] = -5
    errors = schema_errors(log)
    assert len(errors) == 1 and "executionOrder" in errors[0]
    del flow["threadFlows"]
    assert any("'threadFlows' is a required property" in e for e in schema_errors(log))
