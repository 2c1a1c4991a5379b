"""`stridelint demo`: the whole story on the bundled reference kernel's launch-metadata hook.

Lints the naive hook, shows the finding with its evidence and the fix as a diff; with torch,
runs the naive and the fixed hook on a large broadcast mask and compares memory, time and
values; with triton, runs the reference kernel against a PyTorch reference. Without torch
(a plain `pip install`) it says how to add the `kernels` extra and still exits 0: the lint
and the fix are the part a linter's user installed.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import types
from importlib import metadata, resources
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urlparse

from stridelint.config import Config
from stridelint.engine import fix_text, lint_text
from stridelint.findings import FileReport
from stridelint.source import decode

NAIVE_HOOK = "naive_metadata.py.txt"
DISPLAY_NAME = "reduce_metadata.py"
DEFAULT_CPU_ELEMENTS = 64 * 2**20
DEFAULT_CUDA_ELEMENTS = 2 * 2**30

Echo = Callable[[str], None]


def naive_hook_source() -> str:
    return resources.files("stridelint.reference").joinpath(NAIVE_HOOK).read_text("utf-8")


def run(echo: Echo, *, size: int | None, color: bool) -> int:
    from stridelint.output import RenderOptions, render
    from stridelint.rules import RULES_BY_CODE

    device = _device()  # before the reference package (and so triton) is first imported
    naive = naive_hook_source()
    config = Config(root=Path.cwd(), source=None)
    source = decode(naive.encode())
    findings = lint_text(source, config, Path(DISPLAY_NAME)).findings
    report = FileReport(DISPLAY_NAME, source.text, findings)
    echo(f"== 1. stridelint check {DISPLAY_NAME} (the naive launch-metadata hook)\n")
    echo(render("full", [report], RULES_BY_CODE, RenderOptions(color=color)))
    fixed = fix_text(source, config, Path(DISPLAY_NAME), unsafe=False).text
    echo(f"== 2. stridelint fix {DISPLAY_NAME}\n")
    echo("".join(difflib.unified_diff(
        naive.splitlines(keepends=True), fixed.splitlines(keepends=True),
        f"a/{DISPLAY_NAME}", f"b/{DISPLAY_NAME}",
    )))  # fmt: skip
    if not findings or fixed == naive:
        echo("error: the demo hook should have a finding and a fix\n")
        return 1
    if device is None:
        echo(
            "\n== 3. Skipped: torch is not installed. To run both hooks on a large broadcast "
            "mask and the reference Triton kernel, install the `kernels` extra (torch, triton):\n"
            f"   {kernels_install_command()}\n"
        )
        return 0
    default = DEFAULT_CUDA_ELEMENTS if device == "cuda" else DEFAULT_CPU_ELEMENTS
    ok = _measure_hooks(echo, naive, fixed, size or default, device)
    ok = _check_kernel(echo, device) and ok
    return 0 if ok else 1


def kernels_install_command() -> str:
    """`pip install` of the `kernels` extra from where this copy came from (PEP 610's
    direct_url.json: a checkout or a git URL), or by name for an index install."""
    try:
        recorded = metadata.distribution("stridelint").read_text("direct_url.json")
    except metadata.PackageNotFoundError:  # running from a source tree
        recorded = None
    if not recorded:
        return "pip install 'stridelint[kernels]'"
    origin = json.loads(recorded)
    url = origin.get("url", "")
    if "vcs_info" in origin:
        vcs = origin["vcs_info"]
        revision = vcs.get("requested_revision")
        url = f"{vcs.get('vcs', 'git')}+{url}" + (f"@{revision}" if revision else "")
    elif "dir_info" in origin and url.startswith("file:"):
        path = unquote(urlparse(url).path)
        editable = "-e " if origin["dir_info"].get("editable") else ""
        return f"pip install {editable}{shlex.quote(path + '[kernels]')}"
    return f"pip install {shlex.quote(f'stridelint[kernels] @ {url}')}"


def _device() -> str | None:
    """The device to measure on; without CUDA, Triton kernels run in its interpreter."""
    try:
        import torch
    except ImportError:
        return None
    if torch.cuda.is_available():
        return "cuda"
    os.environ.setdefault("TRITON_INTERPRET", "1")  # read when a kernel is decorated
    return "cpu"


def _module(text: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


def _measure_hooks(echo: Echo, naive: str, fixed: str, elements: int, device: str) -> bool:
    import torch

    from stridelint.reference import measure

    mask = measure.broadcast_mask(elements, device, torch.int32)
    dim = 2
    out_shape = [n for d, n in enumerate(mask.shape) if d != dim]
    x = torch.empty((), dtype=torch.float16, device=device).expand(mask.shape)
    y = torch.empty((), dtype=torch.float16, device=device).expand(out_shape)
    args = {"X": x, "Y": y, "Mask": mask, "Scale": x, "DIM": dim, "HAS_MASK": True,
            "HAS_SCALE": False}  # fmt: skip
    kernel = types.SimpleNamespace(name="reduce")
    echo(
        f"\n== 3. Both hooks on a broadcast int32 mask on {device}: shape {tuple(mask.shape)}, "
        f"stride {mask.stride()}, {mask.numel():,} logical elements, "
        f"{mask.untyped_storage().nbytes():,} bytes stored\n\n"
    )
    echo(f"{'hook':<7} {'peak extra memory':>20} {'time':>12}\n")
    results = {}
    for name, text in (("naive", naive), ("fixed", fixed)):
        hook = _module(text, f"{name}_metadata").reduce_launch_metadata
        results[name], peak = measure.peak_memory(lambda: hook((1,), kernel, args), device)
        seconds = measure.median_seconds(lambda: hook((1,), kernel, args), device, repeats=3)
        echo(f"{name:<7} {peak:>14,} bytes {seconds * 1e3:>9.2f} ms\n")
    equal = all(
        int(results["naive"][key]) == int(results["fixed"][key]) for key in ("flops32", "bytes")
    ) and results["naive"]["name"] == results["fixed"]["name"]
    echo(f"\nsame metadata: {equal} ({ {k: _plain(v) for k, v in results['fixed'].items()} })\n")
    return equal


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def _check_kernel(echo: Echo, device: str) -> bool:
    try:
        import triton  # noqa: F401
    except ImportError:
        echo("\n(install triton to run the reference kernel)\n")
        return True
    from stridelint.reference import measure

    mode = "compiled" if device == "cuda" else "Triton interpreter"
    result = measure.check_kernel(device)
    echo(
        f"\n== 4. Reference reduce kernel ({mode}) vs PyTorch: {result['cases']} cases, "
        f"max relative error {result['max_relative_error']:.2e}: "
        f"{'PASS' if result['passed'] else 'FAIL'}\n"
    )
    return bool(result["passed"])
