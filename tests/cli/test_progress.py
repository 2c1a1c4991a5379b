"""The progress bar: on a terminal's stderr for long runs, never in pipes, logs or with -q."""

from __future__ import annotations

import io
import itertools
import os
import pty
import re
import subprocess
import sys
import types
from pathlib import Path

import click._termui_impl as termui
import pytest

from stridelint.config import Config
from stridelint.engine import FixMode, run_files
from stridelint.output.progress import MIN_FILES, progress
from tests.cli.conftest import BROADCAST_SUM, CLEAN


def _project(root: Path, count: int) -> None:
    (root / "bad.py").write_text(BROADCAST_SUM)
    for index in range(count - 1):
        (root / f"clean_{index}.py").write_text(CLEAN)


def _check_with_terminal_stderr(root: Path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    """Run the CLI with stderr on a pseudo-terminal; return the result and what the terminal got."""
    leader, follower = pty.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "stridelint", "check", "--no-cache", *args, "."],
            cwd=root, stdout=subprocess.PIPE, stderr=follower, text=True,
            env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        )
    finally:
        os.close(follower)
    received = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # Linux: EIO once the last writer is gone
            break
        if not chunk:
            break
        received += chunk
    os.close(leader)
    return result, received.decode()


def test_long_run_on_a_terminal_shows_a_bar_that_reaches_the_end(tmp_path):
    _project(tmp_path, MIN_FILES)
    result, terminal = _check_with_terminal_stderr(tmp_path)
    assert result.returncode == 1
    assert "Checking" in terminal and f"{MIN_FILES}/{MIN_FILES}" in terminal
    # The findings and the summary stay on stdout, untouched by the bar.
    assert result.stdout.startswith("bad.py:6:13: SL101")
    assert "Checking" not in result.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_shows_no_time_estimate(monkeypatch):
    """Files differ in cost by orders of magnitude and results arrive in bursts, so an ETA was
    wrong more often than right: the bar shows the count only, even on a slow run."""
    clock = itertools.count(start=0.0, step=2.0)  # every reading: two seconds later
    monkeypatch.setattr(termui, "time", types.SimpleNamespace(time=lambda: next(clock)))
    terminal = _Terminal()
    with progress(MIN_FILES, quiet=False, stream=terminal) as tick:
        for _ in range(MIN_FILES):
            tick()
    shown = terminal.getvalue()
    assert f"{MIN_FILES}/{MIN_FILES}" in shown
    assert not re.search(r"\d+:\d\d", shown), shown


@pytest.mark.parametrize("args", [("-q",), ("--output-format", "json", "-q")])
def test_quiet_runs_show_no_bar(tmp_path, args):
    _project(tmp_path, MIN_FILES)
    result, terminal = _check_with_terminal_stderr(tmp_path, *args)
    assert result.returncode == 1
    assert terminal == ""


def test_short_run_on_a_terminal_shows_no_bar(tmp_path):
    _project(tmp_path, MIN_FILES - 1)
    result, terminal = _check_with_terminal_stderr(tmp_path)
    assert result.returncode == 1 and "SL101" in result.stdout
    assert "Checking" not in terminal


def test_long_run_into_a_pipe_shows_no_bar(run):
    _project(run.root, MIN_FILES)
    result = run("check", "--no-cache", ".")
    assert result.returncode == 1
    assert result.stderr == ""


@pytest.mark.parametrize("jobs", [1, 2])
def test_run_files_ticks_once_per_file_serial_and_pooled(tmp_path, jobs):
    _project(tmp_path, 40)  # 40 >= 8 * 2: two jobs take the process pool
    files = sorted(tmp_path.glob("*.py"))
    ticks = []
    config = Config(root=tmp_path, source=None)
    reports = run_files(files, config, FixMode(), jobs=jobs, cache=None,
                        on_checked=lambda: ticks.append(1))
    assert len(ticks) == len(files) == len(reports)
    assert [report.path for report in reports] == [str(path) for path in files]
