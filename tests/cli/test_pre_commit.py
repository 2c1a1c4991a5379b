"""The hooks in `.pre-commit-hooks.yaml`, run by the real `pre-commit` tool as a user's repo would.

`pre-commit try-repo` installs the hook repository into its own virtualenv: here that
repository is a local git copy of this project's packaged files, so nothing is cloned from
the network; its dependencies come from the package registry pip is configured with.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import BROADCAST_SUM

PROJECT = Path(__file__).resolve().parents[2]
PACKAGED = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "stridelint")
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "stridelint tests", "GIT_AUTHOR_EMAIL": "tests@stridelint.invalid",
    "GIT_COMMITTER_NAME": "stridelint tests", "GIT_COMMITTER_EMAIL": "tests@stridelint.invalid",
}


def _git_repo(root: Path, env: dict[str, str]) -> None:
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(["git", *command], cwd=root, env=env, check=True)


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    """A callable running one hook on one file of a fresh user repository through pre-commit."""
    if shutil.which("git") is None:
        pytest.fail("git is needed to run pre-commit")  # never a silent pass or skip
    base = tmp_path_factory.mktemp("pre-commit")
    env = {**os.environ, **GIT_IDENTITY, "PRE_COMMIT_HOME": str(base / "home"),
           "NO_COLOR": "1"}
    hook_repo = base / "hook-repo"
    hook_repo.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in PACKAGED:
        source = PROJECT / name
        if source.is_dir():
            shutil.copytree(source, hook_repo / name, ignore=ignore)
        else:
            shutil.copy2(source, hook_repo / name)
    _git_repo(hook_repo, env)
    user_repo = base / "user-repo"
    user_repo.mkdir()
    (user_repo / "kernels.py").write_text(BROADCAST_SUM)
    _git_repo(user_repo, env)

    def run(hook_id: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), hook_id,
             "--files", "kernels.py", "--color", "never"],
            cwd=user_repo, env=env, capture_output=True, text=True, timeout=600,
        )

    run.file = user_repo / "kernels.py"
    return run


def test_check_hook_fails_then_fix_hook_fixes_then_both_pass(hooks):
    # Order matters and is one story: a bad file, the fix hook, then a clean file.
    checked = hooks("stridelint")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "kernels.py:6:13: SL101" in checked.stdout and "Failed" in checked.stdout
    assert hooks.file.read_text() == BROADCAST_SUM  # the check hook never writes

    fixed = hooks("stridelint-fix")
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # --exit-non-zero-on-fix
    assert "files were modified by this hook" in fixed.stdout
    after = hooks.file.read_text()
    assert after != BROADCAST_SUM and "_narrow_broadcast" in after
    compile(after, "kernels.py", "exec")

    for hook_id in ("stridelint", "stridelint-fix"):
        clean = hooks(hook_id)
        assert clean.returncode == 0, clean.stdout + clean.stderr
        assert "Passed" in clean.stdout
    assert hooks.file.read_text() == after
