"""The fix styles end to end: the narrowing written out keeps the helper's exact semantics,
the pasted helper stays short, `helper-module` imports instead of pasting, and the
project's Ruff line length shapes what the fix writes."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from stridelint.config import Config, load_config
from stridelint.engine import fix_text
from stridelint.source import decode
from stridelint.transforms import helpers

ROOT = Path(__file__).resolve().parents[2]
EXPANDED = "import torch\n\n\ndef count(x, shape):\n    m = x.expand(*shape)\n    return (m != 0).sum()\n"
PARAMETER = '''import torch


def count(mask, dim):
    """Args:
        mask: a broadcastable mask.
    """
    return (mask != 0).sum(dim=dim).sum()
'''


def _fixed(source: str, config: Config, *, unsafe: bool = False) -> str:
    return fix_text(decode(source.encode()), config, ROOT / "m.py", unsafe).text


def _config(**settings) -> Config:
    return Config(root=ROOT, source=None, scope="all", **settings)


def _helper():
    namespace = {"torch": torch}
    exec(helpers._NARROW.format(name="narrow", torch="torch"), namespace)  # noqa: S102
    return namespace["narrow"]


def _same_view(a: torch.Tensor, b: torch.Tensor) -> bool:
    return (a.shape, a.stride(), a.storage_offset(), a.dtype, a.data_ptr()) == (
        b.shape, b.stride(), b.storage_offset(), b.dtype, b.data_ptr()
    ) and torch.equal(a, b)


SHAPES = [  # (stored shape, expanded shape)
    ((), ()), ((), (3,)), ((1,), (4,)), ((1, 3), (2, 3)), ((2, 1), (2, 5)), ((1, 1), (0, 4)),
    ((1, 1), (1, 4)), ((3, 1, 2), (3, 0, 2)), ((1,), (1,)), ((2, 1, 1), (2, 3, 1)),
]  # fmt: skip


@pytest.mark.parametrize(("stored", "shape"), SHAPES)
def test_the_narrowing_written_out_is_the_helpers(stored, shape):
    fixed = _fixed(EXPANDED, _config())
    statements = re.search(r"\n(    m_reps = .*?\n    m_small = .*?\n)", fixed, re.DOTALL)
    assert statements is not None and "narrow_broadcast" not in fixed, fixed
    for permuted in (False, True):
        m = torch.arange(max(1, torch.Size(stored).numel())).reshape(stored).expand(shape)
        if permuted and m.dim() > 1:
            m = m.transpose(0, -1)
        namespace = {"m": m}
        exec(textwrap.dedent(statements.group(1)), namespace)  # noqa: S102 - the fix's text
        small, reps = _helper()(m)
        assert namespace["m_reps"] == reps
        assert _same_view(namespace["m_small"], small)


def test_the_pasted_helper_is_short_and_narrow():
    fixed = _fixed(PARAMETER, _config())
    helper = re.search(r"\ndef _narrow_broadcast\(.*?\n\n\n", fixed, re.DOTALL).group(0).strip()
    assert len(helper.splitlines()) <= 11
    assert max(len(line) for line in fixed.splitlines()) <= 79


def test_helper_module_imports_the_helpers_instead_of_pasting_them():
    fixed = _fixed(PARAMETER, _config(helper_module="pkg._broadcast"))
    assert "from pkg._broadcast import narrow_broadcast, repeats\n" in fixed
    assert "def " not in fixed.replace("def count(", "")
    assert "mask_small, mask_reps = narrow_broadcast(mask)" in fixed


def test_the_helpers_command_prints_a_module_that_defines_the_helpers():
    result = subprocess.run([sys.executable, "-m", "stridelint", "helpers"], cwd=ROOT,
                            capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)}, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == helpers.helper_module_source()
    namespace: dict = {}
    exec(compile(result.stdout, "_broadcast.py", "exec"), namespace)  # noqa: S102
    assert {"narrow_broadcast", "repeats", "repeated_sum"} <= namespace.keys()
    assert max(len(line) for line in result.stdout.splitlines()) <= 79


def test_the_projects_ruff_line_length_shapes_the_fix(tmp_path: Path):
    long_names = EXPANDED.replace(" m", " attention_mask_expanded").replace("(m ", "(attention_mask_expanded ")
    (tmp_path / "ruff.toml").write_text("line-length = 100\n")
    wide = _fixed(long_names, load_config(tmp_path))
    (tmp_path / "ruff.toml").write_text("line-length = 60\n")
    narrow = _fixed(long_names, load_config(tmp_path))
    assert wide != narrow
    assert max(len(line) for line in wide.splitlines()) <= 100
    rewritten = [line for line in narrow.splitlines() if "attention_mask_expanded" in line]
    assert rewritten and max(len(line) for line in rewritten) <= 60
