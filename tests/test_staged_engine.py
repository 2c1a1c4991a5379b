"""The staged engine (pre-filter, screen, LibCST on the screened functions, the whole file
again when they find something) gives the full path's output: every file parsed and analysed
whole (`lint_text(prefilter=False)`), over the golden corpus and a sample of real code.

Two checks per file: the staged result equals the full one (findings, messages, evidence and
fixes), and the screened functions alone find the same findings (code and position) as the
whole file, so the equality does not rest on the re-check only: a screen that hid the one
function with a finding would fail here even where the re-check would not run.
"""

from __future__ import annotations

import ast
import os
import warnings
from pathlib import Path

import pytest

from stridelint import screen
from stridelint.config import load_config
from stridelint.engine import lint_text
from stridelint.prefilter import may_have_findings
from stridelint.source import SourceError, decode
from tests.golden.corpus import cases

CORPUS = Path(os.environ.get("STRIDELINT_CORPUS", Path.home() / ".cache/stridelint-corpus/src"))
SAMPLED = ("liger_kernel-*", "fla_core-*", "triton_kernels-*", "diffusers-*/diffusers/models")
SAMPLE_SIZE = 30  # candidate files the screen reduces (the others never reach it)
MAX_LINES = 1500  # keeps the sample's full-path run to a few seconds per file at most


def _same_output(data: bytes, config, path: Path) -> None:
    try:
        source = decode(data)
    except SourceError:
        return
    full = lint_text(source, config, path, prefilter=False)
    staged = lint_text(source, config, path)
    assert staged.findings == full.findings
    assert staged.internal_errors == full.internal_errors
    screened = lint_text(source, config, path, recheck_whole=False)
    assert [(f.code, f.start) for f in screened.findings] == [
        (f.code, f.start) for f in full.findings
    ]


GOLDEN = cases()


@pytest.mark.parametrize("case", GOLDEN, ids=[c.id for c in GOLDEN])
def test_golden_cases_give_the_full_path_output(case):
    before = case.file(".before.py")
    _same_output(before.read_bytes(), case.config(), before)


def test_the_screen_drops_functions_in_the_golden_corpus():
    """The comparison above is not vacuous: the screen does blank functions there."""
    reduced = 0
    for case in GOLDEN:
        text = case.read(".before.py") or ""
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        if may_have_findings(tree) and not screen.plan(tree, text).whole:
            reduced += 1
    assert reduced >= 5  # the cases where a module holds functions no finding involves


def _corpus_sample() -> list[Path]:
    """Every k-th candidate file (by sorted path) of at most MAX_LINES lines."""
    if not CORPUS.is_dir():
        return []
    candidates = []
    files = sorted(f for pattern in SAMPLED for f in CORPUS.glob(f"{pattern}/**/*.py"))
    for file in files:
        text = file.read_text(encoding="utf-8", errors="replace")
        if text.count("\n") > MAX_LINES:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escapes in third-party code
                tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if may_have_findings(tree) and not screen.plan(tree, text).whole:
            candidates.append(file)
    step = max(1, len(candidates) // SAMPLE_SIZE)
    return candidates[::step][:SAMPLE_SIZE]


@pytest.fixture(scope="module")
def corpus_sample() -> list[Path]:
    sample = _corpus_sample()
    if not sample:
        pytest.skip(f"no kernel corpus at {CORPUS} (set STRIDELINT_CORPUS)")
    return sample


def test_real_files_give_the_full_path_output(corpus_sample):
    config = load_config(CORPUS, isolated=True)
    for file in corpus_sample:
        _same_output(file.read_bytes(), config, file)


# Real files the full path reports findings in, most without a fix: the staged engine
# answers those from the screened functions alone, without checking the whole file again.
WITH_FINDINGS = (
    "transformers-*/transformers/models/llama/modeling_llama.py",
    "transformers-*/transformers/models/bamba/modeling_bamba.py",
    "diffusers-*/diffusers/models/attention_dispatch.py",
    "transformers-*/transformers/models/mimi/modeling_mimi.py",
    "diffusers-*/diffusers/models/transformers/transformer_flux3.py",
    "transformers-*/transformers/models/eomt/modeling_eomt.py",
)


def test_real_files_with_findings_give_the_full_path_output():
    files = [f for pattern in WITH_FINDINGS for f in sorted(CORPUS.glob(pattern))[:1]]
    if not files:
        pytest.skip(f"no kernel corpus at {CORPUS} (set STRIDELINT_CORPUS)")
    config = load_config(CORPUS, isolated=True)
    without_fix = 0
    for file in files:
        source = decode(file.read_bytes())
        full = lint_text(source, config, file, prefilter=False)
        assert full.findings  # not vacuous: the file has findings to compare
        without_fix += any(f.fix is None for f in full.findings)
        _same_output(file.read_bytes(), config, file)
    assert without_fix >= 4


def test_an_annotated_assignment_with_a_broadcast_dim_gives_the_full_path_output(tmp_path):
    """The pre-filter once read `#` dims in parameter annotations only and dropped this file,
    whose finding the full path reports."""
    text = (
        "import triton\n\n\n@triton.jit\ndef kernel(X, Y):\n    pass\n\n\n"
        "def wrapper(x):\n    mask: \"Bool[Tensor, '#b n']\" = load_mask(x)\n"
        "    kernel[(1,)](x, mask)\n    return mask.float().sum()\n"
    )
    path = tmp_path / "annotated.py"
    config = load_config(tmp_path, isolated=True)
    assert lint_text(decode(text.encode()), config, path, prefilter=False).findings
    _same_output(text.encode(), config, path)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_cycle_collector_is_as_it_was_after_a_file(tmp_path, enabled):
    """The engine pauses the collector while it builds and reads a file's trees (LibCST's
    too); it must run again after, also when the file is a syntax error."""
    import gc

    config = load_config(tmp_path, isolated=True)
    texts = ["import torch\n\ndef f(x):\n    return x.expand(4, 8).sum()\n", "def f(:\n  x.expand(\n"]
    try:
        (gc.enable if enabled else gc.disable)()
        for text in texts:
            lint_text(decode(text.encode()), config, tmp_path / "f.py")
            assert gc.isenabled() is enabled
    finally:
        gc.enable()


# The screen's readings of what the analysis skips (kernel bodies, docstrings that document
# no parameter): the full path's output where a finding stands on them, and where none does.
SEED_CASES = {
    "hook_documented_args": (
        'import triton\n\n\ndef metadata(grid, kernel, meta):\n'
        '    """``Mask`` may be a broadcast view."""\n    mask = meta["Mask"]\n'
        '    return {"n": (mask != 0).sum()}\n\n\n@triton.jit(launch_metadata=metadata)\n'
        "def _rows(X, Mask):\n    pass\n\n\ndef run(x, mask):\n    _rows[(1,)](x, mask)\n",
        True,
    ),
    "decorator_outside_the_kernel_table": (
        "import cutlass.cute as cute\n\n\n@cute.jit\ndef kernel(x):\n"
        "    return (x.expand(4, 8) != 0).sum()\n",
        True,
    ),
    "source_in_a_kernel_body": (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef kernel(X, N):\n"
        "    y = tl.load(X).expand(4, 4)\n    tl.store(X, (y != 0).sum())\n\n\n"
        "def launch(x, n):\n    kernel[(1,)](x, n)\n",
        False,
    ),
    "docstring_prose_without_a_parameter": (
        "import triton\n\n\n@triton.jit\ndef kernel(X):\n    pass\n\n\n"
        'def launch(x, y):\n    """Reduce the partials, then broadcast one scalar."""\n'
        "    kernel[(1,)](x)\n    return (y != 0).sum()\n",
        False,
    ),
    "a_function_through_an_import": (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef kernel(X):\n"
        "    pass\n\n\ndef launch(x):\n    kernel[(1,)](x)\n"
        "    return (tl.broadcast_to(x, (4, 8)) != 0).sum()\n",
        False,
    ),
    "a_source_function_through_an_import": (
        "import torch as th\nimport triton\n\n\n@triton.jit\ndef kernel(X):\n"
        "    pass\n\n\ndef launch(x):\n    kernel[(1,)](x)\n"
        "    return (th.broadcast_to(x, (4, 8)) != 0).sum()\n",
        True,
    ),
    # facts along calls inside classes (analysis/classes.py): a method's expand returned to
    # `self.maker(...)`, passed to a block of a ModuleList, compared in the block's forward
    "a_method_return_passed_to_a_module_list_block": (
        "from torch import nn\n\n\nclass Layer(nn.Module):\n"
        "    def forward(self, x, diff=None):\n        return diff.float()\n\n\n"
        "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.blocks = nn.ModuleList([Layer() for _ in range(2)])\n\n"
        "    def _diff(self, x):\n        return x[:, None].expand(-1, x.shape[1], -1)\n\n"
        "    def forward(self, x):\n        diff = self._diff(x)\n"
        "        for i, block in enumerate(self.blocks):\n            x = block(x, diff=diff)\n"
        "        return x\n",
        True,
    ),
    "a_submodule_forward_that_returns_its_expand": (
        "from torch import nn\n\n\nclass Heads(nn.Module):\n"
        "    def forward(self, m):\n        return m[:, None].expand(-1, m.shape[1], -1)\n\n\n"
        "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.heads = Heads()\n\n    def unrelated(self, y):\n        return y\n\n"
        "    def forward(self, m):\n        return self.heads(m).float()\n",
        True,
    ),
}


@pytest.mark.parametrize("name", SEED_CASES)
def test_what_the_analysis_skips_gives_the_full_path_output(tmp_path, name):
    text, has_findings = SEED_CASES[name]
    path = tmp_path / f"{name}.py"
    config = load_config(tmp_path, isolated=True)
    full = lint_text(decode(text.encode()), config, path, prefilter=False)
    assert bool(full.findings) is has_findings
    _same_output(text.encode(), config, path)


REFERENCE = (
    "import torch\n\n\ndef naive_attn(q, k):\n    mask = k.expand(q.shape[0], q.shape[1])\n"
    "    return (mask != 0).sum()\n\n\ndef wrapper(q):\n    return q\n"
)


@pytest.mark.parametrize("low_severity", [False, True])
@pytest.mark.parametrize("comment", ["", "  # noqa: SL101"])
def test_a_reference_implementation_gives_the_full_path_output(tmp_path, low_severity, comment):
    """A reference implementation's findings are low severity: hidden by default, so the
    screen drops its seeds, unless `low-severity` shows them or a comment names a code
    (the hidden finding uses the `noqa`: SL901 must not call it unused)."""
    import dataclasses

    text = REFERENCE.replace("(mask != 0).sum()", "(mask != 0).sum()" + comment)
    path = tmp_path / "naive.py"
    config = dataclasses.replace(load_config(tmp_path, isolated=True), low_severity=low_severity)
    full = lint_text(decode(text.encode()), config, path, prefilter=False)
    assert [f.code for f in full.findings] == (["SL101"] if low_severity and not comment else [])
    _same_output(text.encode(), config, path)
