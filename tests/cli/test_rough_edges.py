"""What a first session trips over: pipes that close early, stdin without `-`, files that do not
decode, paths with nothing to lint, misplaced configuration tables, and flags some formats
ignored."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.cli.conftest import BROADCAST_SUM, CLEAN, FLOAT_MEAN

ENV = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1"}


def _check_into_a_closed_pipe(root, *args):
    """Run the CLI with stdout on a pipe whose reader is already gone, as after `| head -1`."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "stridelint", *args], cwd=root, stdout=write_end,
            stderr=subprocess.PIPE, text=True, env=ENV,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (("check", "."), 1),
        (("check", "--output-format", "json", "."), 1),
        (("check", "--exit-zero", "."), 0),
        (("check", "--diff", "."), 1),
        (("rule", "--all"), 0),
    ],
)
def test_a_reader_that_went_away_ends_quietly_with_the_findings_status(run, args, status):
    run.write("bad.py", BROADCAST_SUM)
    result = _check_into_a_closed_pipe(run.root, *args)
    assert result.returncode == status
    assert "BrokenPipe" not in result.stderr and "internal error" not in result.stderr
    assert "Exception ignored" not in result.stderr


def test_check_piped_into_head_keeps_the_status_of_the_findings(run):
    for index in range(60):  # more than a pipe buffer of output, so the write really breaks
        run.write(f"src/m{index}.py", BROADCAST_SUM)
    result = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m stridelint check --output-format full --show-fixes "
                       "src/ | head -1; exit ${PIPESTATUS[0]}"],
        cwd=run.root, capture_output=True, text=True, env=ENV,
    )
    assert result.returncode == 1
    assert result.stdout.startswith("src/m0.py:6:13: SL101") and result.stdout.count("\n") == 1
    assert result.stderr == ""


def test_stdin_filename_alone_reads_standard_input(run):
    run.write("elsewhere.py", BROADCAST_SUM)  # would be reported if the directory were linted
    result = run("check", "--stdin-filename", "pkg/mod.py", stdin=CLEAN)
    assert result.returncode == 0, result.stderr
    assert "elsewhere.py" not in result.stdout
    dirty = run("check", "--stdin-filename", "pkg/mod.py", stdin=BROADCAST_SUM)
    assert dirty.returncode == 1 and dirty.stdout.startswith("pkg/mod.py:6:13: SL101")


def test_stdin_filename_with_other_paths_is_a_usage_error(run):
    run.write("a.py", CLEAN)
    result = run("check", "--stdin-filename", "mod.py", "a.py", stdin=CLEAN)
    assert result.returncode == 2
    assert result.stderr.startswith("stridelint: error: --stdin-filename names the source")
    mixed = run("check", "-", "a.py", stdin=CLEAN)
    assert mixed.returncode == 2 and "cannot be combined" in mixed.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"x = '\xe9'\n", "latin.py: not valid UTF-8 (byte 0xE9 on line 1): save it as UTF-8, "
                          "or declare its encoding"),
        (b"# -*- coding: klingon -*-\nx = 1\n", "latin.py: unknown encoding 'klingon'"),
        (b"# coding: ascii\nx = '\xe9'\n", "latin.py: not valid ascii, the encoding its coding "
                                            "declaration names (byte 0xE9 on line 2)"),
    ],
)
def test_a_file_that_does_not_decode_is_an_error_not_a_pass(run, content, message):
    (run.root / "latin.py").write_bytes(content)
    run.write("ok.py", CLEAN)
    result = run("check", ".")
    assert result.returncode == 2
    assert f"stridelint: error: {message}" in result.stderr
    assert "All checks passed!" not in result.stdout
    assert "1 file could not be checked." in result.stdout
    assert "Traceback" not in result.stderr


def test_a_path_without_python_files_warns_and_exits_0(run):
    (run.root / "docs").mkdir()
    run.write("docs/index.md", "# nothing to lint\n")
    result = run("check", "docs")
    assert result.returncode == 0  # Ruff's choice: nothing to lint is not a finding
    assert result.stderr == "stridelint: warning: No Python files found under the given path(s)\n"
    assert "All checks passed!" not in result.stdout
    as_json = run("check", "--output-format", "json", "docs")
    assert json.loads(as_json.stdout) == []  # tools still get a valid document


def test_a_force_excluded_file_is_silently_skipped(run):
    """pre-commit names excluded files itself; that is not a mistake worth a warning."""
    run.write("pyproject.toml", '[tool.stridelint]\nextend-exclude = ["gen.py"]\n')
    run.write("gen.py", BROADCAST_SUM)
    result = run("check", "--force-exclude", "gen.py")
    assert result.returncode == 0 and result.stderr == ""


def test_a_pyproject_style_table_in_stridelint_toml_gets_a_hint(run):
    run.write("ok.py", CLEAN)
    run.write("stridelint.toml", '[tool.stridelint]\nscope = "all"\n')
    result = run("check", "ok.py")
    assert result.returncode == 2
    assert result.stderr == (
        "stridelint: error: stridelint.toml: [tool.stridelint]: in stridelint.toml the settings "
        "go at the top level; remove the [tool.stridelint] header ([tool.stridelint.per-file-"
        "ignores] becomes [per-file-ignores]); only pyproject.toml uses [tool.stridelint]\n"
    )


def test_a_stridelint_table_in_pyproject_gets_a_hint(run):
    run.write("ok.py", CLEAN)
    run.write("pyproject.toml", '[stridelint]\nscope = "all"\n')
    result = run("check", "ok.py")
    assert result.returncode == 2
    assert "pyproject.toml: [stridelint]: in pyproject.toml the settings go in a " \
           "[tool.stridelint] table" in result.stderr


def test_show_fixes_prints_the_diff_in_the_concise_format(run):
    run.write("bad.py", BROADCAST_SUM)
    plain = run("check", "bad.py")
    shown = run("check", "--show-fixes", "bad.py")
    assert shown.returncode == plain.returncode == 1
    assert "--- bad.py\n+++ bad.py\n" not in plain.stdout
    assert shown.stdout.startswith(plain.stdout.splitlines()[0] + "\n--- bad.py\n+++ bad.py\n")
    assert "+    return _count_true(e_small != 0) * math.prod(e_reps)\n" in shown.stdout


def test_statistics_follow_the_json_format(run):
    run.write("bad.py", BROADCAST_SUM)
    run.write("mean.py", FLOAT_MEAN)
    result = run("check", "--statistics", "--output-format", "json", ".")
    assert result.returncode == 1
    [row] = json.loads(result.stdout)  # the whole of stdout is the JSON document
    assert (row["code"], row["count"], row["fixable_count"]) == ("SL101", 2, 1)
    assert row["name"] == "reduce-of-materialized-broadcast"
    unsafe = run("check", "--statistics", "--unsafe-fixes", "--output-format", "json", ".")
    assert json.loads(unsafe.stdout)[0]["fixable_count"] == 2
    refused = run("check", "--statistics", "--output-format", "sarif", ".")
    assert refused.returncode == 2 and "--statistics prints a table or JSON" in refused.stderr


def test_an_unsafe_fix_is_called_unsafe_once(run):
    run.write("mean.py", FLOAT_MEAN)
    result = run("check", "--output-format", "full", "mean.py")
    [help_line] = [line for line in result.stdout.splitlines() if "= help:" in line]
    assert help_line.count("unsafe") == 1, help_line


COMMANDS = (("--help",), ("check", "--help"), ("fix", "--help"), ("rule", "--help"),
            ("demo", "--help"))


@pytest.mark.parametrize("args", COMMANDS)
def test_help_reads_well(run, args):
    result = run(*args)
    assert result.returncode == 0
    text = result.stdout
    # No word twice in a row ("the the", "fix fix"), no sentence cut short by click ("(e.g.").
    assert not re.search(r"\b(\w+) \1\b", text), text
    assert "..." not in text.replace("]...", "]") and "(e.g." not in text
    assert text.count("(unsafe fix)") == 0
    if args == ("--help",):
        for command in ("check", "demo", "fix", "rule"):
            [line] = [line for line in text.splitlines() if line.strip().startswith(command + " ")]
            assert line.rstrip().endswith("."), line


def test_every_option_of_check_has_help(run):
    text = run("check", "--help").stdout.split("Options:\n", 1)[1]
    entries = re.split(r"\n(?=  -)", text.strip("\n"))
    assert len(entries) >= 25
    for entry in entries:
        option, _, help_text = entry.strip().partition("  ")
        assert len(help_text.split()) >= 3, f"{option} has no help"
