"""The pytest plugin, run in-process through `pytester` and loaded with `-p`.

PYTEST_DISABLE_PLUGIN_AUTOLOAD keeps the runs independent of the plugins installed, the
plugin's own entry point included.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch  # noqa: F401  imported before pytester snapshots sys.modules, so never re-imported

import stridelint
import stridelint.runtime.watcher  # noqa: F401  likewise

pytest_plugins = ["pytester"]  # here, not in a conftest: pytest rejects it in non-root conftests

PLUGIN = ("-p", "stridelint.runtime.pytest_plugin")

TESTS = """import torch

def test_materializes():
    mask = torch.randint(0, 3, (64, 1, 1)).expand(64, 32, 2048)
    (mask != 0).sum()

def test_clean():
    mask = torch.randint(0, 3, (64, 1, 1)).expand(64, 32, 2048)
    (mask.narrow(1, 0, 1).narrow(2, 0, 1) != 0).sum() * 32 * 2048

def test_small():
    torch.ones(8, 1).expand(8, 64) * 2  # 2 KiB from 32 B: a 64x blow-up below 1 MiB
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_masks=TESTS)
    return pytester


def test_without_the_flag_nothing_is_watched_or_printed(suite: pytest.Pytester) -> None:
    result = suite.runpytest(*PLUGIN)
    result.assert_outcomes(passed=3)
    printed = [line for line in result.stdout.lines if not line.startswith("plugins:")]
    assert not any("stridelint" in line for line in printed)


def test_loading_the_plugin_does_not_import_torch() -> None:
    """An installed entry point loads the plugin in every run; torch is an optional extra."""
    code = "import sys, stridelint.runtime.pytest_plugin; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_flag_prints_the_summary_table(suite: pytest.Pytester) -> None:
    result = suite.runpytest(*PLUGIN, "--stridelint-runtime")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*stridelint runtime*",
            "location*op*rule*blow-up*bytes*count",
            # SL101, the code `stridelint check` gives the line, not the op's family SL2xx.
            "test_masks.py:5 (test_materializes)*torch.Tensor.ne*SL101 elementwise*8,192x*4.0 MiB*",
        ]
    )
    assert "test_clean" not in result.stdout.str() and "test_small" not in result.stdout.str()


def test_fail_flag_fails_only_the_offending_test(suite: pytest.Pytester) -> None:
    result = suite.runpytest(*PLUGIN, "--stridelint-runtime-fail")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*stridelint runtime: 1 op(s) materialized or wrote broadcast tensors:",
            "*test_masks.py:5 in test_materializes: torch.Tensor.ne (elementwise, SL101)*",
            "FAILED test_masks.py::test_materializes*",
        ]
    )


def test_json_flag_writes_every_event(suite: pytest.Pytester) -> None:
    result = suite.runpytest(*PLUGIN, "--stridelint-runtime-json", "events.json")
    result.assert_outcomes(passed=3)
    document = json.loads((suite.path / "events.json").read_text())
    [event] = document["events"]
    assert document["version"] == 1
    assert event["test"] == "test_masks.py::test_materializes"
    assert event["op"] == "torch.Tensor.ne"
    assert (event["kind"], event["family"], event["code"]) == ("elementwise", "SL2xx", "SL101")
    assert (event["shape"], event["stride"]) == ([64, 32, 2048], [1, 0, 0])
    assert (event["output_bytes"], event["storage_bytes"]) == (64 * 32 * 2048, 64 * 8)
    assert event["filename"].endswith("test_masks.py") and event["lineno"] == 5
    assert event["function"] == "test_materializes"


def test_thresholds_are_options(suite: pytest.Pytester) -> None:
    low = suite.runpytest(*PLUGIN, "--stridelint-runtime", "--stridelint-runtime-min-bytes=0")
    low.stdout.fnmatch_lines(["*test_masks.py:12 (test_small)*torch.Tensor.mul*64x*2.0 KiB*"])
    high = suite.runpytest(
        *PLUGIN,
        "--stridelint-runtime",
        "--stridelint-runtime-min-bytes=0",
        "--stridelint-runtime-threshold=100",
    )
    assert "test_small" not in high.stdout.str()


def test_xdist_workers_hand_their_events_to_the_controller(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    monkeypatch.setenv("PYTHONPATH", str(Path(stridelint.__file__).parents[1]))  # for workers
    result = suite.runpytest(
        *PLUGIN, "-p", "xdist", "-n", "2", "--stridelint-runtime-json", "events.json"
    )
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["test_masks.py:5 (test_materializes)*torch.Tensor.ne*"])
    [event] = json.loads((suite.path / "events.json").read_text())["events"]
    assert event["test"] == "test_masks.py::test_materializes"
