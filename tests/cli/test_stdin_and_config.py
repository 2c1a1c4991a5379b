"""Standard input, suppressions, per-file ignores, excludes and output formats end to end."""

import json

from tests.cli.conftest import BROADCAST_SUM, CLEAN


def test_stdin_reports_under_the_given_filename(run):
    result = run("check", "--stdin-filename", "pkg/mod.py", "-", stdin=BROADCAST_SUM)
    assert result.returncode == 1
    assert result.stdout.startswith("pkg/mod.py:6:13: SL101")


def test_stdin_fix_prints_the_fixed_source(run):
    result = run("check", "--fix", "--stdin-filename", "mod.py", "-", stdin=BROADCAST_SUM)
    assert result.returncode == 0
    assert "e_small = e[" in result.stdout
    compile(result.stdout, "mod.py", "exec")


def test_noqa_and_ignore_comments_suppress(run):
    run.write("a.py", BROADCAST_SUM.replace("(e != 0).sum()", "(e != 0).sum()  # noqa: SL101"))
    run.write("b.py", BROADCAST_SUM.replace("(e != 0).sum()", "(e != 0).sum()  # stridelint: ignore[SL101]"))
    run.write("c.py", BROADCAST_SUM.replace("(e != 0).sum()", "(e != 0).sum()  # noqa"))
    run.write("d.py", "# stridelint: skip-file\n" + BROADCAST_SUM)
    run.write("e.py", BROADCAST_SUM.replace("(e != 0).sum()", "(e != 0).sum()  # noqa: E501"))
    result = run("check", ".")
    assert result.returncode == 1
    reported = {line.split(":")[0] for line in result.stdout.splitlines() if ": SL" in line}
    assert reported == {"e.py"}


def test_per_file_ignores(run):
    run.write("pyproject.toml", '[tool.stridelint]\nper-file-ignores = { "tests/*" = ["SL101"] }\n')
    run.write("tests/t.py", BROADCAST_SUM)
    run.write("src/s.py", BROADCAST_SUM)
    result = run("check", ".")
    assert "src/s.py" in result.stdout and "tests/t.py" not in result.stdout


def test_exclude_and_force_exclude(run):
    run.write("pyproject.toml", '[tool.stridelint]\nextend-exclude = ["generated"]\n')
    run.write("generated/g.py", BROADCAST_SUM)
    run.write("ok.py", CLEAN)
    assert run("check", ".").returncode == 0
    assert run("check", "generated/g.py").returncode == 1  # named explicitly: checked
    assert run("check", "--force-exclude", "generated/g.py").returncode == 0


def test_select_and_ignore_flags(run):
    run.write("bad.py", BROADCAST_SUM)
    assert run("check", "--ignore", "SL1", "bad.py").returncode == 0
    assert run("check", "--select", "SL102", "bad.py").returncode == 0
    assert run("check", "--select", "SL1", "bad.py").returncode == 1


def test_json_output_schema(run):
    run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--output-format", "json", "bad.py")
    [item] = json.loads(result.stdout)
    assert item["code"] == "SL101"
    assert item["filename"] == "bad.py"
    assert item["location"] == {"row": 6, "column": 13}
    assert item["end_location"] == {"row": 6, "column": 19}
    assert item["noqa_row"] == 6
    assert item["fix"]["applicability"] == "safe"
    assert all({"content", "location", "end_location"} == set(e) for e in item["fix"]["edits"])
    assert item["evidence"][0]["message"].startswith("`x.expand(n, -1)` makes a stride-0 view")
    assert item["evidence"][0]["location"] == {"row": 5, "column": 9}
    assert item["url"].endswith("SL101")


def test_rule_page_and_list(run):
    page = run("rule", "SL101")
    assert page.returncode == 0
    for section in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert f"## {section}" in page.stdout
    listing = run("rule", "--all")
    assert "SL101" in listing.stdout and "reduce-of-broadcast" in listing.stdout
    assert run("rule", "SL999").returncode == 2


def test_statistics(run):
    run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--statistics", "bad.py")
    assert result.returncode == 1
    assert "SL101" in result.stdout and "1" in result.stdout.split()[0]
