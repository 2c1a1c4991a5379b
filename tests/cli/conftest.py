"""Run the real CLI in a temporary project, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BROADCAST_SUM = '''import torch


def count(x, n):
    e = x.expand(n, -1)
    return (e != 0).sum()
'''

FLOAT_MEAN = '''import torch


def average(x, n):
    e = x.expand(n, -1)
    return (e * 2).mean()
'''

CLEAN = '''import torch


def fresh(n):
    return (torch.zeros(n) != 0).sum()
'''


# The checkout under test, even where the installed package is another one (PYTHONPATH).
ENV = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1",
       **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}


class Runner:
    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def __call__(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "stridelint", *args],
            cwd=self.root,
            input=stdin,
            capture_output=True,
            text=True,
            env=ENV,
        )


@pytest.fixture
def run(tmp_path: Path) -> Runner:
    return Runner(tmp_path)
