"""The GitHub Action: action.yml's check step, run here by bash as the runner would run it
(its `${{ ... }}` filled in, a fake GITHUB_* environment), must annotate exactly what
`stridelint check --output-format github` reports, and record the status the job ends with."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
BIN = Path(sys.executable).parent  # where the installed `stridelint` script lives

BROADCAST_SUM = (
    "import torch\n\n\ndef count(x, n):\n    e = x.expand(n, -1)\n    return (e != 0).sum()\n"
)
FLOAT_MEAN = (
    "import torch\n\n\ndef average(x, n):\n    e = x.expand(n, -1)\n    return (e * 2).mean()\n"
)
CLEAN = "import torch\n\n\ndef fresh(n):\n    return torch.zeros(n).sum()\n"


def step(step_id: str) -> dict:
    (found,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == step_id]
    return found


def fill(value: str, inputs: dict[str, str]) -> str:
    """Evaluate the `${{ inputs.NAME }}` and `${{ github.action_path }}` the step uses; any
    other expression fails the test (it would need a real runner to mean anything)."""
    def one(match: re.Match) -> str:
        expression = match.group(1).strip()
        if expression == "github.action_path":
            return str(REPO)
        name = expression.removeprefix("inputs.")
        assert name != expression, f"unsupported expression {expression!r}"
        return inputs[name]

    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def run_check_step(
    workspace: Path, tmp: Path, **given: str
) -> tuple[subprocess.CompletedProcess, dict, str]:
    declared = ACTION["inputs"]
    assert set(given) <= set(declared), "the test gives an input the action does not declare"
    inputs = {name: given.get(name, spec.get("default", "")) for name, spec in declared.items()}
    check = step("check")
    assert check["shell"] == "bash"
    output, summary = tmp / "github_output", tmp / "step_summary"
    output.write_text("")
    summary.write_text("")
    env = {
        "PATH": f"{BIN}:/usr/bin:/bin",
        "NO_COLOR": "1",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(REPO),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(tmp),
    }
    env |= {name: fill(str(value), inputs) for name, value in check.get("env", {}).items()}
    result = subprocess.run(["bash", "-c", fill(check["run"], inputs)], cwd=workspace, env=env,
                            capture_output=True, text=True)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return result, outputs, summary.read_text()


def check_annotations(workspace: Path, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "stridelint", "check", "--output-format", "github", *args],
        cwd=workspace, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    return result.stdout


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "count.py").write_text(BROADCAST_SUM)
    (root / "src" / "mean.py").write_text(FLOAT_MEAN)
    (root / "src" / "clean.py").write_text(CLEAN)
    return root


def test_annotations_match_check_and_the_findings_fail_the_job(workspace, tmp_path):
    expected = check_annotations(workspace, "--no-cache", ".")
    result, outputs, summary = run_check_step(workspace, tmp_path, args="--no-cache .")
    assert result.stderr == ""
    assert result.returncode == 0  # the step records the status; the last step exits with it
    assert result.stdout == expected
    assert [line.split(",")[0] for line in expected.splitlines()] == [
        "::error file=src/count.py", "::error file=src/mean.py"]
    assert outputs == {"exit-code": "1"}
    assert summary.startswith("### stridelint\n```text\n")
    assert "SL101" in summary


def test_sarif_is_written_for_the_upload_step(workspace, tmp_path):
    result, outputs, _ = run_check_step(workspace, tmp_path, args="src", sarif="true",
                                        **{"sarif-file": "out/stridelint.sarif"})
    assert outputs == {"exit-code": "1", "sarif-file": "out/stridelint.sarif"}
    log = json.loads((workspace / "out" / "stridelint.sarif").read_text())
    results = log["runs"][0]["results"]
    assert len(results) == len(result.stdout.splitlines()) == 2
    upload = [s for s in ACTION["runs"]["steps"] if "upload-sarif" in s.get("uses", "")]
    assert upload and "steps.check.outputs.sarif-file" in upload[0]["with"]["sarif_file"]


def test_a_clean_tree_passes_and_fail_on_findings_false_lets_findings_pass(workspace, tmp_path):
    result, outputs, summary = run_check_step(workspace, tmp_path, args="src/clean.py")
    assert (result.stdout, outputs) == ("", {"exit-code": "0"})
    assert "All checks passed." in summary
    result, outputs, _ = run_check_step(workspace, tmp_path, **{"fail-on-findings": "false"})
    assert result.stdout.count("::error ") == 2 and outputs == {"exit-code": "0"}


def test_errors_fail_even_when_findings_may_pass(workspace, tmp_path):
    (workspace / "pyproject.toml").write_text('[tool.stridelint]\nscope = "everywhere"\n')
    result, outputs, summary = run_check_step(workspace, tmp_path, **{"fail-on-findings": "false"})
    assert outputs == {"exit-code": "2"}
    assert "stridelint: error:" in result.stderr and "scope" in result.stderr
    assert "could not check" in summary


def test_without_stridelint_on_path_the_step_says_so(workspace, tmp_path):
    check = step("check")
    env = {"PATH": "/usr/bin:/bin", "GITHUB_OUTPUT": str(tmp_path / "out"),
           "GITHUB_ACTION_PATH": str(REPO)}
    if (Path("/usr/bin") / "stridelint").exists():
        pytest.fail("a stridelint in /usr/bin hides the missing-install case")
    result = subprocess.run(["bash", "-c", fill(check["run"], {})], cwd=workspace, env=env,
                            capture_output=True, text=True)
    assert result.stdout.startswith("::error title=stridelint::stridelint is not on PATH")
    assert (tmp_path / "out").read_text() == "exit-code=2\n"


def test_the_autofix_recipe_fixes_the_safe_findings_and_annotates_the_rest(workspace, tmp_path):
    result, outputs, _ = run_check_step(workspace, tmp_path, args="--fix .",
                                        **{"fail-on-findings": "false"})
    assert outputs == {"exit-code": "0"}
    assert "e_small = e[" in (workspace / "src" / "count.py").read_text()
    assert (workspace / "src" / "mean.py").read_text() == FLOAT_MEAN  # unsafe: left alone
    assert result.stdout == check_annotations(workspace, ".")
    assert result.stdout.startswith("::error file=src/mean.py")


def test_the_last_step_fails_the_job_with_the_recorded_status():
    last = ACTION["runs"]["steps"][-1]
    assert "steps.check.outputs.exit-code" in last["env"]["EXIT_CODE"]
    for code in ("0", "1", "2"):
        status = subprocess.run(["bash", "-c", last["run"]], env={"EXIT_CODE": code}).returncode
        assert status == int(code)


def test_the_docs_give_the_action_only_inputs_it_declares():
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    uses = [
        s for block in blocks for s in _steps(yaml.safe_load(block))
        if isinstance(s, dict) and "stridelint" in str(s.get("uses", "")).lower()
    ]
    assert uses, "docs/ci.md shows no step that uses the action"
    for used in uses:
        assert set(used.get("with", {})) <= set(ACTION["inputs"]), used


def _steps(document) -> list:
    """Every step of a workflow document or of a bare `jobs:` fragment."""
    if not isinstance(document, dict):
        return []
    jobs = document.get("jobs", document)
    return [s for job in jobs.values() if isinstance(job, dict) for s in job.get("steps", [])]
