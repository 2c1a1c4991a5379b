"""Check `stridelint fix` on a real launch-metadata hook kept outside the project.

Usage: python benchmarks/check_real_hook.py PATH [--hook NAME]

Copies PATH to a temporary folder, applies the safe fixes there with `stridelint fix`, then
defines the hook of both versions with the module functions it calls (the helpers the fix
added; nothing else, so the module's own imports need not resolve) and calls the hook of each with the same `args`: X (3-D), Y, DIM in 0..2 and -1,
and a Mask that is None, dense, or broadcast (stride 0) over every subset of dims, in bool,
int32 and float32. Prints how many calls agreed; exits 1 on any difference.
Used for triton_kernels' pre-PR-#10776 `reduce.py` (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import ast
import itertools
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import torch


def hook_of(path: Path, hook: str):
    """The hook and the module functions it calls (the fix's helpers), defined on their own."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    kept, pending = {}, [hook]
    while pending:
        name = pending.pop()
        if name in kept or name not in functions:
            continue
        kept[name] = functions[name]
        pending += [n.id for n in ast.walk(functions[name]) if isinstance(n, ast.Name)]
    namespace: dict[str, object] = {"torch": torch, "math": math}
    module = ast.Module(body=list(kept.values()), type_ignores=[])
    exec(compile(module, str(path), "exec"), namespace)
    return namespace[hook]


def masks(shape: tuple[int, ...], dtype: torch.dtype):
    generator = torch.Generator().manual_seed(0)
    yield None
    for k in range(len(shape) + 1):
        for broadcast in itertools.combinations(range(len(shape)), k):
            small = [1 if d in broadcast else n for d, n in enumerate(shape)]
            yield torch.randint(0, 2, small, generator=generator).to(dtype).expand(shape)


def outcome(hook, args: dict) -> object:
    try:
        return hook(None, SimpleNamespace(name="kernel"), dict(args))
    except Exception as error:  # the original may raise: the fix must raise the same
        return type(error)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--hook", default="reduce_launch_metadata")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        fixed = Path(folder) / options.path.name
        shutil.copy(options.path, fixed)
        run = subprocess.run(
            [sys.executable, "-m", "stridelint", "fix", "--isolated", "--no-cache", str(fixed)],
            capture_output=True, text=True,
        )
        print(run.stdout.strip() or run.stderr.strip())
        original = hook_of(options.path, options.hook)
        rewritten = hook_of(fixed, options.hook)
        agreed = differed = 0
        for shape in ((6, 4, 5), (1, 7, 3), (2, 1, 9)):
            for dtype in (torch.bool, torch.int32, torch.float32):
                for mask in masks(shape, dtype):
                    for dim in (0, 1, 2, -1):
                        x = torch.ones(shape)
                        y = torch.empty([n for d, n in enumerate(shape) if d != dim % 3])
                        args = {"X": x, "Y": y, "Mask": mask, "DIM": dim}
                        if outcome(original, args) == outcome(rewritten, args):
                            agreed += 1
                        else:
                            differed += 1
                            print(f"differs: shape={shape} dtype={dtype} dim={dim} "
                                  f"mask strides={None if mask is None else mask.stride()}")
    print(f"{agreed} calls agreed, {differed} differed")
    return 1 if differed else 0


if __name__ == "__main__":
    sys.exit(main())
