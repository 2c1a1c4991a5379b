"""The commands docs/ci.md tells users to run behave as the workflow there expects."""

import json

from tests.cli.conftest import BROADCAST_SUM


def test_github_annotations(run):
    run.write("bad.py", BROADCAST_SUM)
    result = run("check", "--output-format", "github", ".")
    assert result.returncode == 1
    assert result.stdout.startswith("::error file=bad.py,line=6,col=13,endLine=6,endColumn=")
    assert ",title=SL101::" in result.stdout


def test_sarif_with_exit_zero_then_patch_then_fix(run):
    path = run.write("bad.py", BROADCAST_SUM)
    sarif = run("check", "--output-format", "sarif", "--exit-zero", ".")
    assert sarif.returncode == 0
    document = json.loads(sarif.stdout)
    assert document["version"] == "2.1.0"
    assert document["runs"][0]["results"][0]["ruleId"] == "SL101"
    patch = run("check", "--diff", ".")
    assert patch.returncode == 1 and patch.stdout.startswith("--- a/bad.py")
    assert run("check", "--fix", "--exit-non-zero-on-fix", ".").returncode == 1
    assert "e_small = e[" in path.read_text()
    assert run("check", "--fix", "--exit-non-zero-on-fix", ".").returncode == 0
