"""Jupyter notebooks: linted as one module, reported per cell (`nb.ipynb:cell N:row:col`),
fixed cell by cell with magics and untouched cells kept byte for byte. Golden cases live in
tests/integrations/notebooks/: `CASE.before.ipynb`, the findings in `CASE.expect` (the concise
lines without the file name), and `CASE.after.ipynb` when `--fix` changes the notebook."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stridelint import notebook

CASES_DIR = Path(__file__).parent / "notebooks"
CASES = sorted(p.name.removesuffix(".before.ipynb") for p in CASES_DIR.glob("*.before.ipynb"))
# The checkout under test, even where the installed package is another one (PYTHONPATH).
ENV = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1",
       **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}


def stridelint(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stridelint", *args], cwd=cwd,
                          capture_output=True, text=True, env=ENV)


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    """Every case copied into one folder, checked, then fixed, by the real command."""
    root = tmp_path_factory.mktemp("notebooks")
    for case in CASES:
        shutil.copy(CASES_DIR / f"{case}.before.ipynb", root / f"{case}.ipynb")
    # A checkpoint copy is excluded by default, as Jupyter's own folder should be.
    (root / ".ipynb_checkpoints").mkdir()
    shutil.copy(CASES_DIR / f"{CASES[0]}.before.ipynb", root / ".ipynb_checkpoints" / "x.ipynb")
    checked = stridelint(root, "check", "--isolated", "--no-cache", ".")
    fixed = stridelint(root, "check", "--isolated", "--no-cache", "--fix", ".")
    again = stridelint(root, "check", "--isolated", "--no-cache", ".")
    return root, checked, fixed, again


def test_there_are_golden_cases():
    assert len(CASES) >= 4
    for case in CASES:
        assert (CASES_DIR / f"{case}.expect").is_file(), case


@pytest.mark.parametrize("case", CASES)
def test_findings_are_reported_per_cell(golden, case):
    _, checked, _, _ = golden
    assert checked.returncode == 1, checked.stderr
    assert "Traceback" not in checked.stderr and ".ipynb_checkpoints" not in checked.stdout
    prefix = f"{case}.ipynb:"
    found = [line.removeprefix(prefix) for line in checked.stdout.splitlines()
             if line.startswith(prefix)]
    assert found == (CASES_DIR / f"{case}.expect").read_text().splitlines()


@pytest.mark.parametrize("case", CASES)
def test_fix_writes_the_golden_notebook(golden, case):
    root, _, fixed, again = golden
    assert "Traceback" not in fixed.stderr
    after = CASES_DIR / f"{case}.after.ipynb"
    expected = after if after.exists() else CASES_DIR / f"{case}.before.ipynb"
    assert (root / f"{case}.ipynb").read_bytes() == expected.read_bytes()
    json.loads((root / f"{case}.ipynb").read_text())  # still a notebook
    remaining = [line for line in again.stdout.splitlines() if line.startswith(f"{case}.ipynb:")]
    assert not any("[*]" in line for line in remaining)  # a second --fix has nothing left


@pytest.mark.parametrize("case", CASES)
def test_reading_and_writing_back_unchanged_keeps_every_byte(case):
    data = (CASES_DIR / f"{case}.before.ipynb").read_bytes()
    book = notebook.read(data)
    assert notebook.write(book, notebook.split(book, book.text)) == data


def test_evidence_from_another_cell_names_that_cell(tmp_path):
    shutil.copy(CASES_DIR / "cross_cell_call.before.ipynb", tmp_path / "nb.ipynb")
    full = stridelint(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "full",
                      "nb.ipynb").stdout
    why = [line for line in full.splitlines() if "= why:" in line]
    assert len(why) == 2
    assert "passes a broadcast tensor `per_expert` here [cell 4:3:14]" in why[0]
    assert "makes a stride-0 view [cell 4:2:18]" in why[1]
    # The printed location is the finding's own, never a row of the wrong cell.
    assert all(line.endswith("(nb.ipynb:cell 3:2:13)") for line in why)


def test_a_broken_notebook_is_a_clear_error(tmp_path):
    (tmp_path / "bad.ipynb").write_text("{not json")
    (tmp_path / "empty.ipynb").write_text('{"cells": {}}')
    result = stridelint(tmp_path, "check", "--isolated", "--no-cache", ".")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "stridelint: error: bad.ipynb: not a notebook: invalid JSON" in result.stderr
    assert "stridelint: error: empty.ipynb: not a notebook: no `cells` list" in result.stderr


def test_add_noqa_leaves_notebooks_alone_and_says_so(tmp_path):
    path = tmp_path / "nb.ipynb"
    shutil.copy(CASES_DIR / "magics_kept.before.ipynb", path)
    result = stridelint(tmp_path, "check", "--isolated", "--no-cache", "--add-noqa", ".")
    assert result.returncode == 2
    assert "nb.ipynb: --add-noqa does not edit notebooks yet" in result.stderr
    assert path.read_bytes() == (CASES_DIR / "magics_kept.before.ipynb").read_bytes()
