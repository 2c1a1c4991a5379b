"""Registers, spills and resident programs a multiprocessor of the reduce kernels some rows compile.

    PYTHONPATH=. python3 benchmarks/kernel_regs_probe.py     # needs CUDA

Session 14 prepared it (no device was lent) to test whether the 2-D tiles read only where kept
run about four programs a multiprocessor in one round and a tail (docs/kernel-benchmarks.md).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REGISTERS_PER_SM = 65536
WARPS_PER_SM = 64
ROWS = (  # (shape, reduced dim, x dtype, mask kind), as in reduce_bench.py
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "none"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 2, "bfloat16", "bcast_n"),
)


def compiled_kernels(kernel) -> dict:
    """Every compiled variant of a Triton JIT function, by its cache key."""
    found = {}
    for caches in kernel.device_caches.values():
        found.update(caches[0])
    return found


def main() -> int:
    import torch

    import benchmarks.reduce_bench as bench

    reduce_module = importlib.import_module("stridelint.reference.reduce")
    reduce_module.AUTOTUNE = False
    for shape, dim, dtype_name, mask_kind in ROWS:
        x, mask, scale = bench.make_inputs(torch, shape, getattr(torch, dtype_name), mask_kind, "cuda")
        before = set(compiled_kernels(reduce_module._reduce_kernel))
        reduce_module.reduce(x, dim, mask, scale)
        torch.cuda.synchronize()
        plan = reduce_module._plan(x, dim, None if mask is None else mask.expand(x.shape))
        for key, compiled in compiled_kernels(reduce_module._reduce_kernel).items():
            if key in before:
                continue
            regs, warps = compiled.n_regs, compiled.metadata.num_warps
            resident = min(REGISTERS_PER_SM // max(regs * 32 * warps, 1), WARPS_PER_SM // warps)
            print(f"{'x'.join(map(str, shape))} dim {dim} {dtype_name} {mask_kind}: "
                  f"{reduce_module.describe_plan(plan)}, {regs} registers, {compiled.n_spills} spills, "
                  f"{resident} programs a multiprocessor", flush=True)
        del x, mask, scale
    return 0


if __name__ == "__main__":
    sys.exit(main())
