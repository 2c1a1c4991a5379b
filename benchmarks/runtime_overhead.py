"""How much `stridelint.runtime.watch()` slows code down; the target is < 2x on CPU tests.

Two measurements:

1. a loop of small torch ops (the worst case: Python overhead per op dominates), run bare,
   under an empty TorchFunctionMode, under an empty TorchDispatchMode (the two mechanisms the
   watcher could be built on) and under `watch()`; best of `--repeat` runs;
2. when `stridelint.reference` and triton are importable, the reference kernel's test suite,
   `pytest tests/reference -q`, with and without `--stridelint-runtime`.

Run from the repository root: `python benchmarks/runtime_overhead.py`.
"""

from __future__ import annotations

import argparse
import functools
import importlib.metadata
import importlib.util
import subprocess
import sys
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Callable

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stridelint.runtime import watch  # noqa: E402  needs ROOT on the path
PLUGIN = "stridelint.runtime.pytest_plugin"


class EmptyFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        return func(*args, **(kwargs or {}))


class EmptyDispatchMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        return func(*args, **(kwargs or {}))


def small_ops(iterations: int) -> None:
    """Kernel-wrapper-like code: arithmetic, reductions, views, casts, metadata, one broadcast."""
    x = torch.randn(32, 32)
    y = torch.randn(32, 32)
    bias = torch.randn(32, 1)
    for _ in range(iterations):
        z = (x + y).relu() * bias.expand(32, 32)
        z.sum(dim=0)
        (z > 0).float().mean()
        torch.cat([x, y]).view(-1)[:100].clone()
        x.add_(0.0)
        assert x.shape[0] == x.size(1) and x.stride(1) == 1
        x[1:3, ::2].t().contiguous()


def best_times(
    run: Callable[[], Any],
    contexts: dict[str, Callable[[], AbstractContextManager[Any]]],
    repeat: int,
) -> dict[str, float]:
    """Best of `repeat` per context, the contexts interleaved so that drift hits them all."""
    best = dict.fromkeys(contexts, float("inf"))
    for _ in range(repeat):
        for label, context in contexts.items():
            start = time.perf_counter()
            with context():
                run()
            best[label] = min(best[label], time.perf_counter() - start)
    return best


def plugin_args() -> list[str]:
    """`-p` the plugin unless its pytest11 entry point already loads it (twice is an error)."""
    installed = any(ep.value == PLUGIN for ep in importlib.metadata.entry_points(group="pytest11"))
    return [] if installed else ["-p", PLUGIN]


def pytest_wall_times(variants: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """Best wall time of `pytest tests/reference -q` per variant, the variants interleaved."""
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(repeat):
        for label, extra in variants.items():
            command = [sys.executable, "-m", "pytest", "tests/reference", "-q"]
            command += ["-p", "no:cacheprovider", *extra]
            start = time.perf_counter()
            completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            best[label] = min(best[label], time.perf_counter() - start)
            if completed.returncode != 0:
                sys.exit(f"{' '.join(command)} failed:\n{completed.stdout}\n{completed.stderr}")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300, help="loop iterations per run")
    parser.add_argument("--repeat", type=int, default=15, help="runs per setting; the best counts")
    parser.add_argument("--pytest-repeat", type=int, default=3, help="runs of the test suite")
    parser.add_argument("--skip-pytest", action="store_true", help="skip the reference test suite")
    options = parser.parse_args()

    threads = torch.get_num_threads()
    print(f"torch {torch.__version__}, {threads} threads, python {sys.version.split()[0]}")
    workload = functools.partial(small_ops, options.iterations)
    times = best_times(
        workload,
        {
            "bare": nullcontext,
            "empty TorchFunctionMode": EmptyFunctionMode,
            "empty TorchDispatchMode": EmptyDispatchMode,
            "watch()": watch,
        },
        options.repeat,
    )
    print(f"small ops x{options.iterations}, best of {options.repeat}:")
    for label, elapsed in times.items():
        print(f"  {label:<24} {elapsed * 1e3:7.1f} ms  {elapsed / times['bare']:.2f}x")

    runnable = (ROOT / "tests/reference").is_dir() and all(
        importlib.util.find_spec(name) is not None for name in ("stridelint.reference", "triton")
    )
    if options.skip_pytest or not runnable:
        print("pytest tests/reference: skipped (needs stridelint.reference and triton)")
        return
    times = pytest_wall_times(
        {"bare": [], "--stridelint-runtime": [*plugin_args(), "--stridelint-runtime"]},
        options.pytest_repeat,
    )
    print(f"pytest tests/reference -q, best of {options.pytest_repeat}:")
    for label, elapsed in times.items():
        print(f"  {label:<24} {elapsed:7.2f} s   {elapsed / times['bare']:.2f}x")


if __name__ == "__main__":
    main()
