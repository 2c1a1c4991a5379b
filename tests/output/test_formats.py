"""Each output format, rendered from hand-built reports: what a user, a CI job or a code-scanning
service would read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft4Validator, Draft7Validator
from referencing import Registry

import stridelint
from stridelint.findings import Applicability, Edit, Evidence, FileReport, Finding, Fix, Position
from stridelint.output import (
    FORMATS,
    RenderOptions,
    render,
    render_fix_only_summary,
    render_statistics,
    render_summary,
)
from stridelint.rules.base import Rule

SARIF_SCHEMA = Path(__file__).parent.parent / "data" / "sarif-2.1.0.json"

SOURCE = (
    "def hook(mask):\n"
    "    m = mask.expand(4, 8)\n"
    "    return (m != 0).sum()\n"
)


class FakeReduction(Rule):
    """Reduction over a materialized broadcast.

    ## What it does
    Flags reductions of elementwise results of broadcast tensors.

    ## Why is this bad?
    The elementwise op allocates the logical shape.
    """

    code = "SL101"
    name = "reduction-over-broadcast"
    summary = "Reduction over a materialized broadcast tensor"
    fix_availability = "sometimes"
    severity = "error"


class FakeHoist(Rule):
    """Elementwise result kept as a tensor."""

    code = "SL201"
    name = "elementwise-on-broadcast"
    summary = "Elementwise op on a broadcast tensor"
    fix_availability = "sometimes"


class FakeCopy(Rule):
    """Copy of a broadcast tensor."""

    code = "SL301"
    name = "copy-of-broadcast"
    summary = "Copy of a broadcast tensor"


RULES = {rule.code: rule for rule in (FakeReduction, FakeHoist, FakeCopy)}


def position(source: str, offset: int) -> Position:
    """1-based row and character column of a character offset."""
    before = source[:offset]
    return Position(before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1)


def span(source: str, text: str) -> tuple[Position, Position]:
    start = source.index(text)
    return position(source, start), position(source, start + len(text))


def edit(source: str, old: str, new: str) -> Edit:
    start = source.index(old)
    end = start + len(old)
    return Edit(start, end, new, position(source, start), position(source, end))


def finding(source: str, code: str, text: str, message: str, **kwargs) -> Finding:
    start, end = span(source, text)
    return Finding(code, message, start, end, noqa_row=start.row, **kwargs)


REDUCTION = finding(
    SOURCE,
    "SL101",
    "(m != 0).sum()",
    "`(m != 0).sum()` materializes the broadcast `m`",
    evidence=(Evidence("`m` is `mask.expand(4, 8)`", Position(2, 9)),),
    fix=Fix(
        Applicability.SAFE,
        "Narrow the broadcast dim and rescale",
        (
            edit(SOURCE, "(m != 0)", "(m.narrow(1, 0, 1) != 0)"),
            edit(SOURCE, ".sum()", ".sum() * 8"),
        ),
    ),
)
COPY = finding(SOURCE, "SL301", "mask.expand(4, 8)", "Copy of a broadcast tensor")
HOIST = finding(
    SOURCE,
    "SL201",
    "m != 0",
    "Elementwise op on the broadcast `m`",
    fix=Fix(Applicability.UNSAFE, "Compare before the expand", (edit(SOURCE, "m != 0", "m"),)),
)
DISPLAYED = finding(
    SOURCE,
    "SL201",
    "m != 0",
    "Elementwise op on the broadcast `m`",
    fix=Fix(Applicability.DISPLAY, "Compare before the expand", (edit(SOURCE, "m != 0", "m"),)),
)

PLAIN = RenderOptions()


def report(*findings: Finding, path: str = "pkg/hook.py", source: str = SOURCE) -> FileReport:
    return FileReport(path, source, list(findings))


def broken() -> FileReport:
    return FileReport("pkg/broken.py", "def (:\n", error="SyntaxError: invalid syntax")


# --- concise -----------------------------------------------------------------------------


def test_concise_orders_by_row_and_marks_only_applicable_fixes():
    reports = [report(REDUCTION, HOIST, COPY), broken(), report(COPY, path="b.py")]
    assert render("concise", reports, RULES, PLAIN) == (
        "pkg/hook.py:2:9: SL301 Copy of a broadcast tensor\n"
        "pkg/hook.py:3:12: SL101 [*] `(m != 0).sum()` materializes the broadcast `m`\n"
        "pkg/hook.py:3:13: SL201 Elementwise op on the broadcast `m`\n"
        "b.py:2:9: SL301 Copy of a broadcast tensor\n"
    )


def test_concise_marks_unsafe_fixes_when_they_are_enabled():
    text = render("concise", [report(HOIST)], RULES, RenderOptions(unsafe_fixes=True))
    assert text == "pkg/hook.py:3:13: SL201 [*] Elementwise op on the broadcast `m`\n"


def test_concise_never_marks_display_only_fixes():
    text = render("concise", [report(DISPLAYED)], RULES, RenderOptions(unsafe_fixes=True))
    assert "[*]" not in text


def test_concise_with_show_fixes_follows_each_fixable_finding_with_its_diff():
    text = render("concise", [report(REDUCTION, COPY)], RULES, RenderOptions(show_fixes=True))
    assert text == (
        "pkg/hook.py:2:9: SL301 Copy of a broadcast tensor\n"
        "pkg/hook.py:3:12: SL101 [*] `(m != 0).sum()` materializes the broadcast `m`\n"
        "--- pkg/hook.py\n"
        "+++ pkg/hook.py\n"
        "@@ -1,3 +1,3 @@\n"
        " def hook(mask):\n"
        "     m = mask.expand(4, 8)\n"
        "-    return (m != 0).sum()\n"
        "+    return (m.narrow(1, 0, 1) != 0).sum() * 8\n"
        "\n"
    )


def test_line_formats_print_nothing_without_findings():
    reports = [report(), broken()]
    for fmt in ("concise", "full", "json-lines", "github"):
        assert render(fmt, reports, RULES, PLAIN) == ""


def test_concise_colours_path_code_and_marker_only_when_asked():
    text = render("concise", [report(REDUCTION)], RULES, RenderOptions(color=True))
    assert text == (
        "\x1b[1mpkg/hook.py\x1b[0m:3:12: \x1b[1;31mSL101\x1b[0m \x1b[36m[*]\x1b[0m "
        "`(m != 0).sum()` materializes the broadcast `m`\n"
    )


def test_human_formats_have_no_escape_codes_without_colour():
    reports = [report(REDUCTION, HOIST, COPY)]
    options = RenderOptions(show_fixes=True)
    texts = [render(fmt, reports, RULES, options) for fmt in FORMATS]
    texts.append(render_summary(reports, options, fixing=False))
    texts.append(render_statistics(reports, RULES, options))
    assert not any("\x1b" in text for text in texts)


def test_unknown_format_is_rejected():
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render("xml", [], RULES, PLAIN)


# --- full --------------------------------------------------------------------------------


def test_full_shows_the_span_evidence_and_fix():
    assert render("full", [report(REDUCTION)], RULES, PLAIN) == (
        "pkg/hook.py:3:12: SL101 [*] `(m != 0).sum()` materializes the broadcast `m`\n"
        "  |\n"
        "3 |     return (m != 0).sum()\n"
        "  |            ^^^^^^^^^^^^^^ SL101\n"
        "  |\n"
        "  = why: `m` is `mask.expand(4, 8)` (pkg/hook.py:2:9)\n"
        "  = help: Narrow the broadcast dim and rescale\n"
    )


def test_full_separates_findings_with_a_blank_line_and_notes_unsafe_fixes():
    text = render("full", [report(COPY, HOIST)], RULES, PLAIN)
    blocks = text.split("\n\n")
    assert len(blocks) == 2
    assert blocks[0].startswith("pkg/hook.py:2:9: SL301 Copy")
    assert blocks[1].endswith("  = help: Compare before the expand (unsafe fix)\n")


def test_full_says_unsafe_once_when_the_fix_message_already_explains_why():
    explained = finding(
        SOURCE, "SL201", "m != 0", "Elementwise op on the broadcast `m`",
        fix=Fix(Applicability.UNSAFE, "Compare before the expand (unsafe: the result is a view)",
                (edit(SOURCE, "m != 0", "m"),)),
    )
    text = render("full", [report(explained)], RULES, PLAIN)
    assert text.endswith("  = help: Compare before the expand (unsafe: the result is a view)\n")
    assert text.count("unsafe") == 1


def caret_row(text: str) -> tuple[str, str]:
    """The shown source line and the caret line, without their gutters."""
    lines = text.splitlines()
    caret = next(i for i, line in enumerate(lines) if "^" in line)
    return lines[caret - 1].split("| ", 1)[1], lines[caret].split("| ", 1)[1]


def test_full_caret_sits_under_the_span_after_tabs_and_non_ascii():
    source = "def f(mask):\n\tlabel = 'é'; m = mask != 0\n"
    found = finding(source, "SL201", "mask != 0", "Elementwise op")
    shown, carets = caret_row(render("full", [report(found, source=source)], RULES, PLAIN))
    assert shown == "    label = 'é'; m = mask != 0"
    assert carets == " " * shown.index("mask !=") + "^" * len("mask != 0") + " SL201"


def test_full_caret_counts_wide_characters_as_two_cells():
    source = "x = '日本'; y = m != 0\n"
    found = finding(source, "SL201", "m != 0", "Elementwise op")
    _, carets = caret_row(render("full", [report(found, source=source)], RULES, PLAIN))
    # `x = '` is 5 cells, each CJK character 2 more, then `'; y = ` 7.
    assert carets == " " * (5 + 4 + 7) + "^^^^^^ SL201"


def test_full_multi_line_span_underlines_the_first_row_and_shows_three():
    source = "total = (mask\n    != 0\n    ).sum(\n    dim=1)\n"
    found = finding(source, "SL101", source[len("total = "):-1], "Reduction")
    text = render("full", [report(found, source=source)], RULES, PLAIN)
    assert text.splitlines()[1:] == [
        "  |",
        "1 | total = (mask",
        "  |         ^^^^^ SL101",
        "2 |     != 0",
        "3 |     ).sum(",
        "  | ...",
        "  |",
    ]


def test_full_reads_the_final_text_of_a_fixed_file():
    fixed = report(COPY)
    fixed.original_source = "def hook(mask):\n    pass\n"
    fixed.fixed_count = 1
    shown, _ = caret_row(render("full", [fixed], RULES, PLAIN))
    assert shown == "    m = mask.expand(4, 8)"


def test_full_with_show_fixes_prints_the_fix_as_a_unified_diff():
    text = render("full", [report(REDUCTION)], RULES, RenderOptions(show_fixes=True))
    assert text.split("  = help: Narrow the broadcast dim and rescale\n\n", 1)[1] == (
        "--- pkg/hook.py\n"
        "+++ pkg/hook.py\n"
        "@@ -1,3 +1,3 @@\n"
        " def hook(mask):\n"
        "     m = mask.expand(4, 8)\n"
        "-    return (m != 0).sum()\n"
        "+    return (m.narrow(1, 0, 1) != 0).sum() * 8\n"
    )


# --- json and json-lines -----------------------------------------------------------------


EXPECTED_REDUCTION_RECORD = {
    "cell": None,
    "code": "SL101",
    "message": "`(m != 0).sum()` materializes the broadcast `m`",
    "filename": "pkg/hook.py",
    "location": {"row": 3, "column": 12},
    "end_location": {"row": 3, "column": 26},
    "fix": {
        "applicability": "safe",
        "message": "Narrow the broadcast dim and rescale",
        "edits": [
            {
                "content": "(m.narrow(1, 0, 1) != 0)",
                "location": {"row": 3, "column": 12},
                "end_location": {"row": 3, "column": 20},
            },
            {
                "content": ".sum() * 8",
                "location": {"row": 3, "column": 20},
                "end_location": {"row": 3, "column": 26},
            },
        ],
    },
    "noqa_row": 3,
    "url": "https://stridelint.dev/rules/SL101",
    "low_severity": False,
    "evidence": [{"message": "`m` is `mask.expand(4, 8)`", "location": {"row": 2, "column": 9}}],
}


def test_json_is_ruffs_schema_with_evidence():
    unknown = Finding("SL999", "Internal error", Position(1, 1), Position(1, 4), noqa_row=1)
    text = render("json", [report(REDUCTION, unknown), broken()], RULES, PLAIN)
    records = json.loads(text)
    assert records[1] == EXPECTED_REDUCTION_RECORD
    assert records[0]["code"] == "SL999"
    assert records[0]["url"] is None
    assert records[0]["fix"] is None
    assert records[0]["evidence"] == []


def test_json_is_indented_with_sorted_keys():
    text = render("json", [report(COPY)], RULES, PLAIN)
    assert text.startswith('[\n  {\n    "cell": null,\n    "code": "SL301",\n    "end_location"')


def test_json_without_findings_is_an_empty_array():
    assert render("json", [report(), broken()], RULES, PLAIN) == "[]\n"


def test_json_lines_prints_one_compact_record_per_line():
    text = render("json-lines", [report(REDUCTION, COPY)], RULES, PLAIN)
    lines = text.splitlines()
    assert len(lines) == 2 and text.endswith("\n")
    assert all(": " not in line and "\n" not in line for line in lines)
    assert json.loads(lines[1]) == EXPECTED_REDUCTION_RECORD
    as_array = json.loads(render("json", [report(REDUCTION, COPY)], RULES, PLAIN))
    assert [json.loads(line) for line in lines] == as_array


# --- github ------------------------------------------------------------------------------


def test_github_annotations_are_errors_titled_by_code():
    text = render("github", [report(REDUCTION, COPY)], RULES, PLAIN)
    assert text == (
        "::error file=pkg/hook.py,line=2,col=9,endLine=2,endColumn=26,title=SL301"
        "::Copy of a broadcast tensor\n"
        "::error file=pkg/hook.py,line=3,col=12,endLine=3,endColumn=26,title=SL101"
        "::`(m != 0).sum()` materializes the broadcast `m`\n"
    )


def test_github_escapes_data_and_properties():
    message = "100% copy\nof mask: a, b"
    found = Finding("SL301", message, Position(1, 1), Position(1, 2), noqa_row=1)
    text = render("github", [report(found, path="dir,x/a:b.py")], RULES, PLAIN)
    assert text == (
        "::error file=dir%2Cx/a%3Ab.py,line=1,col=1,endLine=1,endColumn=2,title=SL301"
        "::100%25 copy%0Aof mask: a, b\n"
    )


# --- sarif -------------------------------------------------------------------------------


def sarif_log(*reports: FileReport) -> dict:
    return json.loads(render("sarif", list(reports), RULES, PLAIN))


@pytest.mark.parametrize("validator_class", [Draft4Validator, Draft7Validator])
def test_sarif_validates_against_the_sarif_2_1_0_schema(validator_class):
    # The schema declares draft-04; an empty registry makes any remote $ref fail, not fetch.
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = validator_class(schema, registry=Registry())
    log = sarif_log(report(REDUCTION, HOIST, COPY), broken(), report(path="/abs/empty dir/x.py"))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []


def test_sarif_describes_the_tool_and_every_rule():
    log = sarif_log(report())
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("stridelint", stridelint.__version__)
    assert [rule["id"] for rule in driver["rules"]] == ["SL101", "SL201", "SL301"]
    assert driver["rules"][0] == {
        "id": "SL101",
        "name": "reduction-over-broadcast",
        "shortDescription": {"text": "Reduction over a materialized broadcast tensor"},
        "fullDescription": {
            "text": "Flags reductions of elementwise results of broadcast tensors."
        },
        "help": {"text": FakeReduction.page(), "markdown": FakeReduction.page()},
        "helpUri": "https://stridelint.dev/rules/SL101",
        "defaultConfiguration": {"level": "error"},
    }
    assert driver["rules"][2]["fullDescription"] == {"text": "Copy of a broadcast tensor"}
    assert run["results"] == []


def test_sarif_result_has_location_evidence_and_fix():
    (run,) = sarif_log(report(REDUCTION, COPY), broken())["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["SL301", "SL101"]
    copy, reduction = run["results"]
    assert "fixes" not in copy and "relatedLocations" not in copy
    assert (copy["ruleIndex"], copy["level"]) == (2, "warning")
    assert reduction["ruleIndex"] == 0
    assert reduction["level"] == "error"
    assert reduction["message"] == {"text": REDUCTION.message}
    assert reduction["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/hook.py"},
                "region": {"startLine": 3, "startColumn": 12, "endLine": 3, "endColumn": 26},
            }
        }
    ]
    assert reduction["relatedLocations"] == [
        {
            "id": 0,
            "message": {"text": "`m` is `mask.expand(4, 8)`"},
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/hook.py"},
                "region": {"startLine": 2, "startColumn": 9},
            },
        }
    ]
    (fix,) = reduction["fixes"]
    assert fix["description"] == {"text": "Narrow the broadcast dim and rescale"}
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "pkg/hook.py"}
    assert change["replacements"][1] == {
        "deletedRegion": {"startLine": 3, "startColumn": 20, "endLine": 3, "endColumn": 26},
        "insertedContent": {"text": ".sum() * 8"},
    }


LOW = finding(SOURCE, "SL302", "mask.expand(4, 8)", "Copy kept dense (low severity: ...)", low=True)


def test_a_low_severity_finding_says_so_in_json_and_is_a_sarif_note():
    (record,) = json.loads(render("json", [report(LOW)], RULES, PLAIN))
    assert record["low_severity"] is True
    (run,) = sarif_log(report(LOW, COPY))["runs"]
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"SL302": "note", "SL301": "warning"}


def test_sarif_uris_are_relative_posix_or_file_uris():
    (run,) = sarif_log(report(COPY, path="sub dir/a.py"), report(COPY, path="/abs/b.py"))["runs"]
    locations = [result["locations"][0]["physicalLocation"] for result in run["results"]]
    uris = [location["artifactLocation"]["uri"] for location in locations]
    assert uris == ["sub%20dir/a.py", "file:///abs/b.py"]


# --- summary and statistics --------------------------------------------------------------


def test_summary_without_findings():
    assert render_summary([report(), report(path="b.py")], PLAIN, fixing=False) == (
        "All checks passed!\n"
    )


def test_summary_never_says_all_passed_when_a_file_could_not_be_checked():
    assert render_summary([report(), broken()], PLAIN, fixing=False) == (
        "1 file could not be checked.\n"
    )
    crashed = report(REDUCTION)
    crashed.internal_errors = ["internal error in SL101: boom"]
    assert render_summary([crashed, broken()], PLAIN, fixing=False) == (
        "Found 1 error.\n2 files could not be checked.\n[*] 1 fixable with the `--fix` option.\n"
    )


def test_summary_counts_findings_and_fixable_ones():
    reports = [report(REDUCTION, COPY), report(REDUCTION, path="b.py")]
    assert render_summary(reports, PLAIN, fixing=False) == (
        "Found 3 errors.\n[*] 2 fixable with the `--fix` option.\n"
    )


def test_summary_mentions_hidden_unsafe_fixes():
    reports = [report(REDUCTION, HOIST)]
    assert render_summary(reports, PLAIN, fixing=False) == (
        "Found 2 errors.\n"
        "[*] 1 fixable with the `--fix` option "
        "(1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
    )
    assert render_summary(reports, RenderOptions(unsafe_fixes=True), fixing=False) == (
        "Found 2 errors.\n[*] 2 fixable with the `--fix` option.\n"
    )


def test_summary_with_only_unsafe_fixes():
    reports = [report(HOIST, HOIST, DISPLAYED)]
    assert render_summary(reports, PLAIN, fixing=False) == (
        "Found 3 errors.\n"
        "No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
    )


def test_summary_after_fixing_counts_fixed_and_remaining():
    fixed = report(COPY)
    fixed.fixed_count = 2
    text = render_summary([fixed], PLAIN, fixing=True)
    assert text == "Found 3 errors (2 fixed, 1 remaining).\n"
    fixed.findings = []
    text = render_summary([fixed], PLAIN, fixing=True)
    assert text == "Found 2 errors (2 fixed, 0 remaining).\n"


def test_summary_after_fixing_nothing():
    assert render_summary([report(COPY)], PLAIN, fixing=True) == "Found 1 error.\n"
    assert render_summary([report()], PLAIN, fixing=True) == "All checks passed!\n"


def test_summary_colours_the_fix_marker():
    text = render_summary([report(REDUCTION)], RenderOptions(color=True), fixing=False)
    assert "\x1b[36m[*]\x1b[0m 1 fixable" in text


def test_statistics_rows_sorted_by_count_then_code():
    unknown = Finding("SL999", "Internal error", Position(1, 1), Position(1, 4), noqa_row=1)
    reports = [report(COPY, HOIST, REDUCTION, unknown), report(COPY, HOIST, path="b.py"), broken()]
    assert render_statistics(reports, RULES, PLAIN) == (
        "2\tSL201\t[ ] Elementwise op on a broadcast tensor\n"
        "2\tSL301\t[ ] Copy of a broadcast tensor\n"
        "1\tSL101\t[*] Reduction over a materialized broadcast tensor\n"
        "1\tSL999\t[ ] Internal error\n"
    )


def test_statistics_without_fixes_has_no_marker_column():
    assert render_statistics([report(COPY, COPY)], RULES, PLAIN) == (
        "2\tSL301\tCopy of a broadcast tensor\n"
    )


def test_statistics_without_findings_is_empty():
    assert render_statistics([report()], RULES, PLAIN) == ""


def test_statistics_as_json_count_each_code_and_its_applicable_fixes():
    unknown = Finding("SL999", "Internal error", Position(1, 1), Position(1, 4), noqa_row=1)
    reports = [report(REDUCTION, HOIST, unknown), report(REDUCTION, HOIST, path="b.py"), broken()]
    rows = json.loads(render_statistics(reports, RULES, PLAIN, "json"))
    assert rows == [
        {"code": "SL101", "name": "reduction-over-broadcast", "count": 2, "fixable": True,
         "fixable_count": 2, "summary": "Reduction over a materialized broadcast tensor"},
        {"code": "SL201", "name": "elementwise-on-broadcast", "count": 2, "fixable": False,
         "fixable_count": 0, "summary": "Elementwise op on a broadcast tensor"},
        {"code": "SL999", "name": None, "count": 1, "fixable": False, "fixable_count": 0,
         "summary": "Internal error"},
    ]
    unsafe = json.loads(render_statistics(reports, RULES, RenderOptions(unsafe_fixes=True), "json"))
    assert unsafe[1]["fixable_count"] == 2


def test_statistics_as_json_lines_and_empty_json():
    lines = render_statistics([report(COPY, COPY)], RULES, PLAIN, "json-lines").splitlines()
    assert [json.loads(line)["count"] for line in lines] == [2]
    assert json.loads(render_statistics([report()], RULES, PLAIN, "json")) == []


def test_statistics_refuse_the_formats_of_single_findings():
    with pytest.raises(ValueError, match="cannot be printed as 'sarif'"):
        render_statistics([report(COPY)], RULES, PLAIN, "sarif")


def test_fix_only_summary_counts_what_was_fixed():
    fixed = report(COPY)
    fixed.fixed_count = 2
    assert render_fix_only_summary([fixed, broken()]) == "Fixed 2 errors.\n"
    assert render_fix_only_summary([report(COPY)]) == "No errors fixed.\n"
