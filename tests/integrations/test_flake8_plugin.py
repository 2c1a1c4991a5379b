"""`flake8 --select SL` reports what `stridelint check` reports: the real flake8, in a
subprocess, over the golden corpus and over files that exercise suppressions and settings."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import flake8  # noqa: F401  (the `test` extra installs it; without it these tests must fail)

REPO = Path(__file__).resolve().parents[2]
CORPUS = sorted(p.relative_to(REPO).as_posix() for p in REPO.glob("fixes/*/*.before.py"))
FORMAT = "%(path)s\t%(row)d\t%(col)d\t%(code)s\t%(text)s"
ENV = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1"}

Row = tuple[str, str, int, int, str]  # path, code, row, column, message


def flake8_rows(
    cwd: Path, *args: str, select: str = "SL"
) -> tuple[set[Row], subprocess.CompletedProcess]:
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", f"--select={select}", f"--format={FORMAT}",
         *args],
        cwd=cwd, capture_output=True, text=True, env=ENV,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    rows = set()
    for line in result.stdout.splitlines():
        path, row, column, code, text = line.split("\t")
        message = text.removeprefix(code + " ")
        rows.add((Path(path).as_posix(), code, int(row), int(column), message))
    return rows, result


def check_rows(cwd: Path, *args: str) -> set[Row]:
    result = subprocess.run(
        [sys.executable, "-m", "stridelint", "check", "--no-cache", "--output-format", "json",
         *args],
        cwd=cwd, capture_output=True, text=True, env=ENV,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    return {
        (Path(r["filename"]).as_posix(), r["code"], r["location"]["row"], r["location"]["column"],
         r["message"])
        for r in json.loads(result.stdout)
    }


def test_the_plugin_is_registered_under_sl():
    names = {ep.name: ep.value for ep in entry_points(group="flake8.extension")}
    assert names.get("SL") == "stridelint.flake8_plugin:StridelintChecker", (
        "reinstall the project (pip install -e .) to register the flake8 entry point"
    )


def test_flake8_reports_the_same_findings_as_check_over_the_golden_corpus():
    assert len(CORPUS) > 20
    checked = check_rows(REPO, *CORPUS)
    linted, _ = flake8_rows(REPO, "--jobs=2", *CORPUS, select="SL,E999")
    # A file the interpreter rejects is flake8's E999; flake8 runs no plugin on it.
    unparsable = {row[0] for row in checked if row[1] == "SL900"}
    assert unparsable == {row[0] for row in linted if row[1] == "E999"}
    assert {row for row in checked if row[1] != "SL900"} == {
        row for row in linted if row[1] != "E999"
    }
    assert {"SL101", "SL102", "SL201", "SL301", "SL401", "SL901"} <= {row[1] for row in linted}


SUPPRESSIONS = '''\
import torch


def count(x, n):
    e = x.expand(n, -1)
    a = (e != 0).sum()  # noqa: SL101
    b = (e != 0).sum()  # noqa
    c = (e != 0).sum()  # noqa: E501
    d = (e != 0).sum()  # stridelint: ignore[SL101]
    f = (e != 0).sum()
    g = 1  # noqa: SL102
    return a, b, c, d, f, g
'''


def test_suppressions_are_honoured_the_same_way(tmp_path):
    (tmp_path / "mod.py").write_text(SUPPRESSIONS)
    checked = check_rows(tmp_path, "mod.py")
    linted, _ = flake8_rows(tmp_path, "mod.py")
    assert linted == checked
    lines = SUPPRESSIONS.splitlines()
    reported = {(code, lines[row - 1].split("=")[0].strip()) for _, code, row, _, _ in linted}
    assert reported == {("SL101", "c"), ("SL101", "f"), ("SL901", "g")}


def test_stridelint_settings_apply_and_flake8_ignore_works(tmp_path):
    (tmp_path / "mod.py").write_text(SUPPRESSIONS)
    (tmp_path / "pyproject.toml").write_text('[tool.stridelint]\nignore = ["SL901"]\n')
    linted, _ = flake8_rows(tmp_path, "mod.py")
    assert {row[1] for row in linted} == {"SL101"}
    assert linted == check_rows(tmp_path, "mod.py")
    ignored, _ = flake8_rows(tmp_path, "--extend-ignore=SL101", "mod.py")
    assert ignored == set()


def test_a_bad_setting_stops_flake8_with_one_line(tmp_path):
    (tmp_path / "mod.py").write_text(SUPPRESSIONS)
    (tmp_path / "pyproject.toml").write_text('[tool.stridelint]\nscope = "everywhere"\n')
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=SL", "mod.py"],
        cwd=tmp_path, capture_output=True, text=True, env=ENV,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith("stridelint: error: ")
    assert "scope" in result.stderr and "Traceback" not in result.stderr
