"""`stridelint check --runtime-report`: static findings confirmed by what really ran."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from stridelint.runtime import watch  # noqa: E402
from stridelint.runtime.report import write_json  # noqa: E402

MODULE = """import torch


def count(x, n):
    e = x.expand(n, -1)
    return (e != 0).sum()


def unseen(x, n):
    e = Rows(x).repeated(n)
    return e.double()


class Rows:  # a method's result: no return summary reaches the caller
    def __init__(self, x):
        self.x = x

    def repeated(self, n):
        return self.x.expand(n, -1)
"""


def _run_module(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location("confirm_mod", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.ones(1, 4096)
    with watch(threshold=4.0, min_bytes=1024) as watcher:
        module.count(x, 512)
        module.unseen(x, 512)
    report = tmp_path / "runtime.json"
    write_json(report, [("test_x", event) for event in watcher.events])
    return path, report


def test_findings_are_confirmed_and_misses_listed(tmp_path):
    path, report = _run_module(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "stridelint", "check", "--isolated", "--no-cache",
         "--runtime-report", str(report), str(path)],
        capture_output=True, text=True,
    )
    assert result.returncode == 1, result.stderr
    finding = next(line for line in result.stdout.splitlines() if ": SL101" in line)
    assert "[confirmed at runtime:" in finding
    assert "Runtime events with no static finding" in result.stdout
    assert f"runtime: {path}:11:" in result.stdout  # `e.double()` of a tensor made elsewhere


def test_a_bad_report_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "m.py").write_text("x = 1\n")
    result = subprocess.run(
        [sys.executable, "-m", "stridelint", "check", "--runtime-report",
         str(tmp_path / "bad.json"), str(tmp_path / "m.py")],
        capture_output=True, text=True,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
