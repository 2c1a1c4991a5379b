"""pre-commit, run for real as a user's repo would: the `repo: local` snippet the README and the
guide document, and the hooks in `.pre-commit-hooks.yaml` through `pre-commit try-repo`.

Both install stridelint into a virtualenv of pre-commit's own: here from a local git copy of
this project's packaged files (the snippet's git URL points at it), so nothing is cloned from
the network; the dependencies come from the package registry pip is configured with.
"""

from __future__ import annotations

import os
import re
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


DOCUMENTED_IN = ("README.md", "docs/guide.md")
GIT_URL_PLACEHOLDER = "https://<git host>/<owner>/stridelint.git"


def documented_local_hook() -> tuple[str, str]:
    """The `repo: local` snippet and the `entry:` the docs give for the fixing variant; the
    README and the guide must agree on both."""
    found = set()
    for doc in DOCUMENTED_IN:
        text = (PROJECT / doc).read_text()
        [snippet] = re.findall(r"```yaml\n(repos:\n  - repo: local\n.*?)```", text, re.DOTALL)
        [fix_entry] = re.findall(r"use `entry: (stridelint check --fix [^`]*)`", text)
        found.add((snippet, fix_entry))
    assert len(found) == 1, "README.md and docs/guide.md document different pre-commit hooks"
    return found.pop()


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A git copy of the packaged project (the hook repository) and pre-commit's settings."""
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
    return base, hook_repo, env


def _user_repo(root: Path, env: dict[str, str], **files: str) -> Path:
    root.mkdir()
    (root / "kernels.py").write_text(BROADCAST_SUM)
    for name, text in files.items():
        (root / name).write_text(text)
    _git_repo(root, env)
    return root


def _pre_commit(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--files", "kernels.py", "--color", "never"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
    )


def test_the_documented_local_hook_checks_then_its_fix_variant_fixes(base):
    root, hook_repo, env = base
    snippet, fix_entry = documented_local_hook()
    # The snippet as a user fills it in: the git URL of their stridelint (here, the local copy).
    config = snippet.replace(GIT_URL_PLACEHOLDER, f"file://localhost{hook_repo}")
    assert config != snippet
    user_repo = _user_repo(root / "local-hook-repo", env, **{".pre-commit-config.yaml": config})

    checked = _pre_commit("run", "stridelint", cwd=user_repo, env=env)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "kernels.py:6:13: SL101" in checked.stdout and "Failed" in checked.stdout
    assert (user_repo / "kernels.py").read_text() == BROADCAST_SUM

    fixing = config.replace("entry: stridelint check --force-exclude", f"entry: {fix_entry}")
    assert fixing != config
    (user_repo / ".pre-commit-config.yaml").write_text(fixing)
    subprocess.run(["git", "commit", "-q", "-am", "fix hook"], cwd=user_repo, env=env, check=True)
    fixed = _pre_commit("run", "stridelint", cwd=user_repo, env=env)
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # --exit-non-zero-on-fix
    assert "files were modified by this hook" in fixed.stdout
    assert "e_small = e[" in (user_repo / "kernels.py").read_text()
    clean = _pre_commit("run", "stridelint", cwd=user_repo, env=env)
    assert clean.returncode == 0 and "Passed" in clean.stdout, clean.stdout + clean.stderr


@pytest.fixture(scope="module")
def hooks(base):
    """A callable running one hook on one file of a fresh user repository through pre-commit."""
    root, hook_repo, env = base
    user_repo = _user_repo(root / "user-repo", env)

    def run(hook_id: str) -> subprocess.CompletedProcess:
        return _pre_commit("try-repo", str(hook_repo), hook_id, cwd=user_repo, env=env)

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
    assert after != BROADCAST_SUM and "e_small = e[" in after
    compile(after, "kernels.py", "exec")

    for hook_id in ("stridelint", "stridelint-fix"):
        clean = hooks(hook_id)
        assert clean.returncode == 0, clean.stdout + clean.stderr
        assert "Passed" in clean.stdout
    assert hooks.file.read_text() == after
