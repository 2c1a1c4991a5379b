"""A runtime event carries the code `stridelint check` gives its line, so both reports name the
same line alike."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from stridelint.runtime import watch  # noqa: E402
from stridelint.runtime.report import (  # noqa: E402
    event_from_dict,
    event_to_dict,
    format_table,
    summarize,
)

MODULE = """import torch


def count(x, n):
    e = x.expand(n, -1)
    return (e != 0).sum()


def silenced(x, n):
    e = x.expand(n, -1)
    return (e != 0).sum()  # noqa: SL101


def unseen(x, n):
    e = Rows(x).repeated(n)
    return e.double()


class Rows:  # a method's result: no return summary reaches the caller
    def __init__(self, x):
        self.x = x

    def repeated(self, n):
        return self.x.expand(n, -1)
"""


@pytest.fixture
def events(tmp_path, monkeypatch):
    """Run MODULE's functions under the watcher, in a project without configuration."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "mod.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location("static_codes_mod", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.ones(1, 4096)
    with watch(threshold=4.0, min_bytes=1024) as watcher:
        module.count(x, 512)
        module.silenced(x, 512)
        module.unseen(x, 512)
    return path, watcher.events


def _static_codes(path: Path) -> dict[int, str]:
    result = subprocess.run(
        [sys.executable, "-m", "stridelint", "check", "--no-cache", "--output-format", "json",
         path.name],
        cwd=path.parent, capture_output=True, text=True,
    )
    return {record["location"]["row"]: record["code"] for record in json.loads(result.stdout)}


def test_an_event_on_a_flagged_line_carries_the_static_code(events):
    path, recorded = events
    static = _static_codes(path)
    [flagged] = [event for event in recorded if event.lineno in static]
    assert (flagged.lineno, flagged.op) == (6, "torch.Tensor.ne")
    assert flagged.code == static[6] == "SL101"
    assert flagged.family == "SL2xx"  # the op's kind is unchanged; only its name follows the check
    assert "(elementwise, SL101)" in flagged.describe()
    assert "SL101 elementwise" in format_table(summarize([flagged]))


def test_an_event_no_rule_predicted_keeps_its_family(events):
    path, recorded = events
    [unseen] = [event for event in recorded if event.lineno == 16]
    assert 16 not in _static_codes(path)
    assert unseen.code is None and unseen.rule == "SL2xx"


def test_noqa_of_the_static_code_silences_the_runtime_event_too(events):
    _, recorded = events
    assert 11 not in [event.lineno for event in recorded]


def test_the_code_survives_json_and_older_records_read_without_it(events):
    _, recorded = events
    flagged = next(event for event in recorded if event.code)
    record = event_to_dict(flagged, "test_x")
    assert event_from_dict(record) == ("test_x", flagged)
    del record["code"]
    _, older = event_from_dict(record)
    assert older.code is None and older.rule == "SL2xx"
