"""`stridelint demo` and the reference package on a machine without torch (simulated here by
blocking the import; tests/cli/test_fresh_install.py does it for real)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from stridelint import demo

WITHOUT_TORCH = "import sys; sys.modules['torch'] = None; sys.modules['triton'] = None; "


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})


def test_importing_the_reference_package_needs_no_torch():
    result = _python(WITHOUT_TORCH + "import stridelint.reference; print('ok')")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"


def test_demo_without_torch_shows_the_finding_and_the_fix_and_exits_0():
    result = _python(WITHOUT_TORCH + "from stridelint.cli import main; main(['demo'])")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "reduce_metadata.py:" in result.stdout and " SL101 " in result.stdout
    assert "  = why: " in result.stdout
    assert "+++ b/reduce_metadata.py" in result.stdout
    assert "install the `kernels` extra (torch, triton):" in result.stdout


def test_reference_reduce_is_the_kernel_wrapper_whatever_was_imported_first():
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    code = (
        "import stridelint.reference.measure, stridelint.reference as package\n"
        "from stridelint.reference import reduce\n"
        "print(callable(reduce), type(reduce).__name__, reduce is package.reduce)\n"
    )
    result = _python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "True function True\n"


class _Distribution:
    def __init__(self, direct_url: dict | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return None if self.direct_url is None else json.dumps(self.direct_url)


@pytest.mark.parametrize(
    ("direct_url", "command"),
    [
        ({"url": "file:///home/me/stridelint", "dir_info": {}},
         "pip install '/home/me/stridelint[kernels]'"),
        ({"url": "file:///home/me/stridelint", "dir_info": {"editable": True}},
         "pip install -e '/home/me/stridelint[kernels]'"),
        ({"url": "https://git.example/me/stridelint.git",
          "vcs_info": {"vcs": "git", "requested_revision": "v0.1.0", "commit_id": "abc"}},
         "pip install 'stridelint[kernels] @ git+https://git.example/me/stridelint.git@v0.1.0'"),
        (None, "pip install 'stridelint[kernels]'"),
    ],
)
def test_the_install_hint_points_where_stridelint_came_from(monkeypatch, direct_url, command):
    monkeypatch.setattr(demo.metadata, "distribution", lambda name: _Distribution(direct_url))
    assert demo.kernels_install_command() == command
