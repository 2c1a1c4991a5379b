"""A fresh machine: a new virtual environment without torch, stridelint installed the way the
docs say (from a checkout, and from a git URL), then every command the docs show, run as
written.

The commands are read from the docs themselves, so a command added to them without an
expectation here fails the suite, and so does an expectation whose command left the docs.
One virtual environment serves every test; pip takes LibCST, click and pathspec from the
package registry it is configured with, as a user's pip would.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.cli.conftest import BROADCAST_SUM, CLEAN, FLOAT_MEAN

PROJECT = Path(__file__).resolve().parents[2]
PACKAGED = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "stridelint")
DOCS = ("README.md", "docs/guide.md", "docs/configuration.md", "docs/ci.md")
GIT_URL_PLACEHOLDER = "https://<git host>/<owner>/stridelint.git"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "stridelint tests", "GIT_AUTHOR_EMAIL": "tests@stridelint.invalid",
    "GIT_COMMITTER_NAME": "stridelint tests", "GIT_COMMITTER_EMAIL": "tests@stridelint.invalid",
}

# The project every check command runs in, fresh for each command.
PROJECT_FILES = {
    "mod.py": BROADCAST_SUM,
    "src/bad.py": BROADCAST_SUM,
    "src/mean.py": FLOAT_MEAN,  # its only fix is unsafe
    "src/pkg/ops.py": BROADCAST_SUM,
    "tests/test_x.py": CLEAN,
}


@dataclass(frozen=True)
class Expect:
    status: int
    stdout: str = ""  # a piece of standard output
    files: dict[str, str] = field(default_factory=dict)  # file written -> a piece of it


CHECKS = {
    "stridelint check src/": Expect(1, "src/bad.py:6:13: SL101 [*] `e != 0` materializes"),
    "stridelint check --fix src/": Expect(1, "Found 3 errors (2 fixed, 1 remaining)."),
    "stridelint check --diff src/": Expect(1, "+++ b/src/bad.py"),
    "stridelint check --unsafe-fixes --fix src/":
        Expect(0, "Found 3 errors (3 fixed, 0 remaining)."),
    "stridelint rule SL101": Expect(0, "## What it does"),
    "cat mod.py | stridelint check --stdin-filename mod.py -": Expect(1, "mod.py:6:13: SL101"),
    "stridelint check": Expect(1, "src/pkg/ops.py:6:13: SL101"),
    "stridelint check src/ tests/test_x.py": Expect(1, "src/mean.py:6:13: SL101"),
    "stridelint check --fix --unsafe-fixes": Expect(0, "Found 4 errors (4 fixed, 0 remaining)."),
    "stridelint check --diff": Expect(1, "+++ b/mod.py"),
    "stridelint check --fix-only --unfixable SL301 src/": Expect(0, "Fixed 2 errors."),
    "stridelint check --config \"scope = 'all'\" --show-settings": Expect(0, 'scope = "all"'),
    "stridelint check --statistics --output-format json -o stridelint-stats.json src/": Expect(
        1, files={"stridelint-stats.json": '"code": "SL101"'}
    ),
    "stridelint check --output-format json --stdin-filename src/pkg/ops.py - < src/pkg/ops.py":
        Expect(1, '"filename": "src/pkg/ops.py"'),
    "stridelint check --fix --stdin-filename src/pkg/ops.py - < src/pkg/ops.py":
        Expect(0, "e_small = e[tuple(slice(1) if r > 1 else slice(None) for r in e_reps)]"),
    "stridelint check --output-format github .": Expect(1, "::error file=mod.py,line=6,col=13,"),
    "stridelint check --output-format sarif --exit-zero . > stridelint.sarif": Expect(
        0, files={"stridelint.sarif": '"version": "2.1.0"'}
    ),
    "stridelint check --diff . > stridelint.patch || true": Expect(
        0, files={"stridelint.patch": "+++ b/mod.py"}
    ),
    "stridelint check --fix --exit-non-zero-on-fix .": Expect(1, "fixed"),
    "stridelint helpers > src/pkg/_broadcast.py": Expect(
        0, files={"src/pkg/_broadcast.py": "def narrow_broadcast(*args):"}
    ),
}
README_INSTALL = "pip install . && stridelint demo"
GIT_INSTALL = f"pip install 'stridelint @ git+{GIT_URL_PLACEHOLDER}'"
NOT_RUN_HERE = {
    "pip install .": "the first half of the README's install command, which runs here",
    "pip install '.[kernels]'": "installs torch and triton; .ci/run installs the kernels extra "
                                "(torch pinned to the CPU build) and runs the kernel tests",
    "pip install torch==2.13.0 && pip install -e '.[test,kernels]' && python -m pytest -q -n auto":
        "the test suite itself: .ci/run runs exactly this",
}


def documented_commands() -> set[str]:
    """`$ ...` lines of console blocks and `- run: ...` lines of workflow blocks, without
    their trailing comments."""
    commands = set()
    for doc in DOCS:
        text = (PROJECT / doc).read_text()
        for block in re.findall(r"```console\n(.*?)```", text, re.DOTALL):
            commands.update(line[2:] for line in block.splitlines() if line.startswith("$ "))
        for block in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL):
            commands.update(re.findall(r"^\s*- run: (.*)$", block, re.MULTILINE))
    return {re.sub(r"\s+#\s.*$", "", command).strip() for command in commands}


def test_every_documented_command_is_run_here_or_says_where():
    documented = documented_commands()
    known = set(CHECKS) | set(NOT_RUN_HERE) | {README_INSTALL, GIT_INSTALL}
    assert documented - known == set(), "a documented command with no expectation"
    assert set(CHECKS) - documented == set(), "an expectation for a command the docs dropped"
    assert {README_INSTALL, GIT_INSTALL} <= documented


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A venv made with `python -m venv`, stridelint installed from a git URL and then by the
    README's own command in a checkout; returns what each step printed."""
    for tool in ("git", "bash"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is needed to install from a git URL")  # never a silent skip
    base = tmp_path_factory.mktemp("fresh-install")
    checkout = base / "stridelint"
    checkout.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in PACKAGED:
        source = PROJECT / name
        if source.is_dir():
            shutil.copytree(source, checkout / name, ignore=ignore)
        else:
            shutil.copy2(source, checkout / name)
    git_env = {**os.environ, **GIT_IDENTITY}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(["git", *command], cwd=checkout, env=git_env, check=True)

    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # Only the new venv and the system's tools: no path to the environment running this test.
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin", NO_COLOR="1")
    torch_check = _run("python -c 'import torch'", base, env)
    # `localhost`: the pip that `venv` bundles rejects a direct reference with an empty host.
    git_url = f"file://localhost{checkout}"
    git_install = _run(GIT_INSTALL.replace(GIT_URL_PLACEHOLDER, git_url), base, env)
    readme = _run(README_INSTALL, checkout, env)
    return {"env": env, "checkout": checkout, "torch": torch_check, "git": git_install,
            "readme": readme, "venv": venv}


def test_the_environment_has_no_torch(fresh):
    assert fresh["torch"].returncode != 0
    assert "No module named 'torch'" in fresh["torch"].stderr


def test_install_from_the_git_url(fresh):
    result = fresh["git"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Successfully installed" in result.stdout and "stridelint-0.1.0" in result.stdout


def test_readme_install_then_demo_without_torch(fresh):
    result = fresh["readme"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    out = result.stdout
    assert re.search(r"^reduce_metadata\.py:\d+:\d+: SL101 \[\*\] ", out, re.MULTILINE)  # finding
    assert "  = why: " in out  # its evidence
    assert "--- a/reduce_metadata.py\n+++ b/reduce_metadata.py\n" in out  # the fix as a diff
    assert "+def _narrow_broadcast(" in out
    extra = shlex.quote(f"{fresh['checkout']}[kernels]")
    assert "install the `kernels` extra (torch, triton):\n" in out
    assert out.rstrip().endswith(f"pip install {extra}")


@pytest.mark.parametrize("command", sorted(CHECKS))
def test_documented_check_command(fresh, tmp_path, command):
    for name, text in PROJECT_FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    expect = CHECKS[command]
    result = _run(command, tmp_path, fresh["env"])
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == expect.status, result.stdout + result.stderr
    assert expect.stdout in result.stdout, result.stdout + result.stderr
    for name, piece in expect.files.items():
        assert piece in (tmp_path / name).read_text()
    # The command ran the fresh environment's stridelint, not the one running this test.
    assert shutil.which("stridelint", path=fresh["env"]["PATH"]) == str(
        fresh["venv"] / "bin" / "stridelint"
    )
