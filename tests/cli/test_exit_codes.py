"""The CLI's exit status is the contract CI and pre-commit rely on (Ruff's 0/1/2)."""

from tests.cli.conftest import BROADCAST_SUM, CLEAN, FLOAT_MEAN


def test_clean_file_exits_0(run):
    run.write("ok.py", CLEAN)
    result = run("check", "ok.py")
    assert result.returncode == 0, result.stderr
    assert "All checks passed!" in result.stdout


def test_findings_exit_1_and_print_ruff_style_lines(run):
    run.write("bad.py", BROADCAST_SUM)
    result = run("check", "bad.py")
    assert result.returncode == 1
    assert result.stdout.startswith(
        "bad.py:6:13: SL101 [*] `e != 0` materializes `e`, broadcast over dim 0, then `.sum()`"
    )


def test_exit_zero_keeps_findings_but_exits_0(run):
    run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--exit-zero", "bad.py")
    assert result.returncode == 0
    assert "SL101" in result.stdout


def test_fix_applies_safe_fix_and_exits_0_when_nothing_remains(run):
    path = run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--fix", "bad.py")
    assert result.returncode == 0, result.stdout + result.stderr
    fixed = path.read_text()
    assert "e_small = e[tuple(slice(1) if r > 1 else slice(None) for r in e_reps)]" in fixed
    assert "return _count_true(e_small != 0) * math.prod(e_reps)" in fixed
    assert run("check", "bad.py").returncode == 0


def test_fix_command_is_check_fix(run):
    path = run.write("bad.py", BROADCAST_SUM)
    assert run("fix", "bad.py").returncode == 0
    assert "e_small = e[" in path.read_text()


def test_exit_non_zero_on_fix(run):
    run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--fix", "--exit-non-zero-on-fix", "bad.py")
    assert result.returncode == 1


def test_unsafe_fix_needs_the_flag(run):
    path = run.write("mean.py", FLOAT_MEAN)
    result = run("check", "--fix", "mean.py")
    assert result.returncode == 1
    assert path.read_text() == FLOAT_MEAN
    assert run("check", "--fix", "--unsafe-fixes", "mean.py").returncode == 0
    assert "e_small = e[" in path.read_text()


def test_diff_prints_patch_writes_nothing_and_exits_1(run):
    path = run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--diff", "bad.py")
    assert result.returncode == 1
    assert "+    e_small = e[tuple(slice(1) if r > 1 else slice(None) for r in e_reps)]" in result.stdout
    assert path.read_text() == BROADCAST_SUM


def test_diff_without_changes_exits_0(run):
    run.write("ok.py", CLEAN)
    assert run("check", "--diff", "ok.py").returncode == 0


def test_bad_flag_exits_2(run):
    result = run("check", "--no-such-flag")
    assert result.returncode == 2


def test_bad_selector_exits_2_with_one_line(run):
    run.write("ok.py", CLEAN)
    result = run("check", "--select", "XYZ", "ok.py")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_unknown_config_key_exits_2_naming_the_key(run):
    run.write("ok.py", CLEAN)
    run.write("pyproject.toml", "[tool.stridelint]\nselcet = ['SL1']\n")
    result = run("check", "ok.py")
    assert result.returncode == 2
    assert "selcet" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_missing_path_exits_2(run):
    result = run("check", "nowhere.py")
    assert result.returncode == 2
    assert "nowhere.py" in result.stderr


def test_syntax_error_is_sl900_and_other_files_are_still_checked(run):
    run.write("a_broken.py", "def f(:\n    pass\n")
    run.write("b_bad.py", BROADCAST_SUM)
    result = run("check", ".")
    assert result.returncode == 1
    assert "a_broken.py:1:" in result.stdout and "SL900" in result.stdout
    assert "b_bad.py:6:13: SL101" in result.stdout


def test_undecodable_file_exits_2_without_traceback(run):
    (run.root / "latin.py").write_bytes(b"x = '\xe9'\n")
    run.write("ok.py", CLEAN)
    result = run("check", ".")
    assert result.returncode == 2
    assert "latin.py" in result.stderr and "Traceback" not in result.stderr


def test_nesting_too_deep_for_the_interpreter_is_an_error_not_a_crash(run):
    # CPython gives up on this with MemoryError; LibCST's native parser crashed the process.
    run.write("deep.py", "x = " + "-" * 100_000 + "1\n")
    run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--fix", ".")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "stridelint: error: deep.py: too deeply nested for the parser; not checked" in result.stderr
    assert "e_small = e[" in (run.root / "bad.py").read_text()  # other files still fixed
