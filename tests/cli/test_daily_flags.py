"""The flags Ruff users reach for every day, end to end: --output-file, --show-settings,
--show-files, --fix-only, --fixable/--unfixable and `unsafe-fixes`, --config KEY=VALUE and
--scope."""

from __future__ import annotations

import json
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

from tests.cli.conftest import BROADCAST_SUM, CLEAN, FLOAT_MEAN

# A parameter only its docstring calls broadcast, in a function that launches no kernel: a
# possible finding, reported under `scope = "all"` only.
POSSIBLE = '''import torch


def count(mask):
    """Count the non-zeros.

    Args:
        mask: a broadcastable (possibly stride-0) mask.
    """
    return (mask != 0).sum()
'''


def test_output_file_gets_the_report_and_stdout_stays_empty(run):
    run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--output-file", "reports/lint.json", "--output-format", "json", ".")
    assert result.returncode == 1
    assert result.stdout == ""
    [record] = json.loads((run.root / "reports" / "lint.json").read_text())
    assert record["code"] == "SL101"


def test_output_file_holds_the_human_report_with_its_summary(run):
    run.write("bad.py", BROADCAST_SUM)
    expected = run("check", "bad.py").stdout
    result = run("check", "-o", "lint.txt", "bad.py")
    assert result.returncode == 1 and result.stdout == ""
    assert (run.root / "lint.txt").read_text() == expected


def test_output_file_that_cannot_be_written_is_an_error(run):
    run.write("ok.py", CLEAN)
    run.write("taken", "a file, so no directory can be made here\n")
    result = run("check", "--output-file", "taken/lint.txt", "ok.py")
    assert result.returncode == 2
    assert result.stderr.startswith("stridelint: error: --output-file taken/lint.txt:")
    assert "Traceback" not in result.stderr


def test_show_settings_prints_the_settings_in_effect_as_toml(run):
    run.write("pyproject.toml", '[tool.stridelint]\nselect = ["SL1"]\nunsafe-fixes = true\n'
                                '[tool.stridelint.per-file-ignores]\n"tests/*" = ["SL101"]\n')
    result = run("check", "--show-settings", "--ignore", "SL102", "--scope", "all")
    assert result.returncode == 0
    assert result.stdout.startswith(f"# settings file: {run.root / 'pyproject.toml'}\n")
    settings = tomllib.loads(result.stdout)
    assert settings["select"] == ["SL1"] and settings["ignore"] == ["SL102"]
    assert settings["scope"] == "all" and settings["unsafe-fixes"] is True
    assert settings["per-file-ignores"] == {"tests/*": ["SL101"]}
    # The printout is itself a valid stridelint.toml that gives the same settings.
    run.write("ci/stridelint.toml", result.stdout.split("\n", 2)[2])
    again = run("check", "--show-settings", "--config", "ci/stridelint.toml")
    assert tomllib.loads(again.stdout) == settings


def test_show_files_lists_what_would_be_checked_and_checks_nothing(run):
    run.write("pyproject.toml", '[tool.stridelint]\nextend-exclude = ["gen"]\n')
    run.write("src/b.py", BROADCAST_SUM)
    run.write("src/a.pyi", CLEAN)
    run.write("gen/g.py", BROADCAST_SUM)
    run.write("notes.txt", "not python\n")
    result = run("check", "--show-files")
    assert result.returncode == 0  # the finding in src/b.py is not looked for
    assert result.stdout == "src/a.pyi\nsrc/b.py\n"


def test_fix_only_fixes_and_reports_nothing_that_remains(run):
    fixable = run.write("bad.py", BROADCAST_SUM)
    unsafe = run.write("mean.py", FLOAT_MEAN)  # its only fix is unsafe: it remains
    result = run("check", "--fix-only", ".")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Fixed 1 error.\n"
    assert "e_small = e[" in fixable.read_text()
    assert unsafe.read_text() == FLOAT_MEAN
    nothing = run("check", "--fix-only", ".")
    assert (nothing.returncode, nothing.stdout) == (0, "No errors fixed.\n")
    assert run("check", ".").returncode == 1  # mean.py still has its finding


def test_fix_only_with_exit_non_zero_on_fix(run):
    run.write("bad.py", BROADCAST_SUM)
    assert run("check", "--fix-only", "--exit-non-zero-on-fix", ".").returncode == 1
    assert run("check", "--fix-only", "--exit-non-zero-on-fix", ".").returncode == 0


def test_unfixable_keeps_the_finding_but_not_the_fix(run):
    path = run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--fix", "--unfixable", "SL101", "bad.py")
    assert result.returncode == 1
    assert path.read_text() == BROADCAST_SUM
    assert "SL101 [*]" not in result.stdout and "bad.py:6:13: SL101 `e != 0`" in result.stdout
    as_json = run("check", "--unfixable", "SL1", "--output-format", "json", "bad.py")
    assert json.loads(as_json.stdout)[0]["fix"] is None


def test_fixable_replaces_the_setting_and_the_most_specific_selector_wins(run):
    path = run.write("bad.py", BROADCAST_SUM)
    run.write("pyproject.toml", '[tool.stridelint]\nfixable = ["SL2"]\n')
    assert run("check", "--fix", "bad.py").returncode == 1  # SL101 is not fixable here
    assert path.read_text() == BROADCAST_SUM
    result = run("check", "--fix", "--fixable", "SL101", "--unfixable", "SL1", "bad.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "e_small = e[" in path.read_text()


def test_unsafe_fixes_setting_and_its_flag(run):
    path = run.write("mean.py", FLOAT_MEAN)
    run.write("pyproject.toml", "[tool.stridelint]\nunsafe-fixes = true\n")
    marked = run("check", "mean.py")
    assert "SL101 [*]" in marked.stdout  # the setting makes the unsafe fix applicable
    assert run("check", "--fix", "--no-unsafe-fixes", "mean.py").returncode == 1
    assert path.read_text() == FLOAT_MEAN
    assert run("check", "--fix", "mean.py").returncode == 0
    assert "e_small = e[" in path.read_text()


def test_config_key_value_overrides_one_setting(run):
    run.write("possible.py", POSSIBLE)
    run.write("pyproject.toml", '[tool.stridelint]\nscope = "wrappers"\n')
    assert run("check", "possible.py").returncode == 0
    result = run("check", "--config", "scope = 'all'", "possible.py")
    assert result.returncode == 1 and "possible.py:10:13: SL101" in result.stdout
    ignored = run("check", "--config", "scope = 'all'", "--config", 'ignore = ["SL101"]',
                  "possible.py")
    assert ignored.returncode == 0


def test_config_override_mistakes_are_one_line_errors(run):
    run.write("ok.py", CLEAN)
    unquoted = run("check", "--config", "scope=all", "ok.py")
    assert unquoted.returncode == 2
    assert unquoted.stderr.startswith(
        "stridelint: error: --config 'scope=all': not a file, and not a TOML `KEY = VALUE` pair"
    )
    unknown = run("check", "--config", "scop = 'all'", "ok.py")
    assert unknown.returncode == 2
    assert unknown.stderr == (
        "stridelint: error: --config scop: unknown key (did you mean 'scope'?)\n"
    )
    wrong = run("check", "--config", "scope = 'everything'", "ok.py")
    assert "--config scope: expected one of 'wrappers', 'all', got 'everything'" in wrong.stderr


def test_config_file_and_overrides_combine(run):
    run.write("possible.py", POSSIBLE)
    run.write("ci/lint.toml", 'ignore = ["SL102"]\n')
    result = run("check", "--config", "ci/lint.toml", "--config", "scope = 'all'",
                 "--show-settings")
    settings = tomllib.loads(result.stdout)
    assert settings["ignore"] == ["SL102"] and settings["scope"] == "all"
    two_files = run("check", "--config", "ci/lint.toml", "--config", "ci/lint.toml", "possible.py")
    assert two_files.returncode == 2 and "only one configuration file" in two_files.stderr


def test_scope_flag_overrides_the_setting(run):
    run.write("possible.py", POSSIBLE)
    run.write("pyproject.toml", '[tool.stridelint]\nscope = "all"\n')
    assert run("check", "possible.py").returncode == 1
    assert run("check", "--scope", "wrappers", "possible.py").returncode == 0
    assert run("check", "--scope", "everything", "possible.py").returncode == 2
