"""Compile the reduce kernel's launches for a Hopper GPU (sm_90) on the CPU: each benchmark row's
plan, registers, spills and the widths of its global loads, with the ptxas and cuobjdump that
Triton's wheel bundles. No GPU is needed.

    PYTHONPATH=. python3 benchmarks/kernel_ptx_probe.py                  # the 36 fp16 benchmark rows
    PYTHONPATH=. python3 benchmarks/kernel_ptx_probe.py --shapes 8192,4,8192 --dims 2 \\
        --set ROW_TILE=2048 --set ROW_WARPS=16 --json probe.json        # other settings
    PYTHONPATH=. python3 benchmarks/kernel_ptx_probe.py --sweep s27     # a sweep's cases x variants, before a device run
    PYTHONPATH=. python3 benchmarks/kernel_ptx_probe.py --dtypes fp16 bf16 --variants-of s27   # all rows, each variant

Why: a bandwidth-bound kernel loses speed silently when a tile or an offset change stops Triton
from proving x's addresses 16-byte aligned (its loads then split into narrow ones), or when a tile
needs more registers than leave room for enough programs a multiprocessor. Both show in the
compiled code; device time is scarce. The launch is the one ``reduce`` makes (``_plan`` and
``_launch_spec`` on meta tensors), specialized as Triton's launcher would specialize it on
tensors from PyTorch's allocator (16-byte aligned): integer arguments divisible by 16 marked so,
those equal to 1 compiled in. Multiprocessors: reduce.DEFAULT_SM_COUNT (an H200's, as the H100's).
Counts are of load instructions in the code, not of loads executed.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import benchmarks.reduce_bench as bench  # found through the path above (neither imports torch)
import benchmarks.sweep_coverage as coverage
import benchmarks.tile_sweep as sweep

ARCH = 90
# A Hopper multiprocessor's limits (registers are given out to a warp in steps of 8 a thread).
REGISTERS_PER_SM = 65536
WARPS_PER_SM = 64
PROGRAMS_PER_SM = 32
SHARED_BYTES_PER_SM = 228 * 1024
POINTER_TYPES = {"float16": "*fp16", "bfloat16": "*bf16", "float32": "*fp32", "bool": "*i1", "int32": "*i32"}
# A global load's width in bytes per thread, from its PTX spelling (ld.global[.hints].vN.bM).
LOAD = re.compile(r"\bld\.global(?:\.[\w:]+)*?(?:\.v(\d))?\.[bsuf](\d+)\b")


def load_widths(ptx: str) -> dict[int, int]:
    """Bytes a global load instruction moves per thread -> how many such instructions."""
    widths = collections.Counter()
    for vector, bits in LOAD.findall(ptx):
        widths[int(vector or 1) * int(bits) // 8] += 1
    return dict(sorted(widths.items()))


def compile_launch(reduce_module, triton, torch, arguments: dict, options: dict):
    """Triton's compiled kernel for these arguments (see the module's docstring for how they are
    specialized)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    kernel = reduce_module._reduce_kernel
    signature, constexprs, attrs = {}, {}, {}
    for index, param in enumerate(kernel.params):
        value = arguments.get(param.name, param.default)
        if param.is_constexpr or (isinstance(value, int) and value == 1):
            signature[param.name], constexprs[param.name] = "constexpr", value
        elif isinstance(value, torch.Tensor):
            signature[param.name] = POINTER_TYPES[str(value.dtype).removeprefix("torch.")]
            attrs[(index,)] = [["tt.divisibility", 16]]
        else:
            signature[param.name] = "i32" if -(2**31) <= value < 2**31 else "i64"
            if value % 16 == 0:
                attrs[(index,)] = [["tt.divisibility", 16]]
    source = ASTSource(kernel, signature, constexprs, attrs)
    return triton.compile(source, target=GPUTarget("cuda", ARCH, 32), options=options)


def resource_usage(triton, cubin: bytes) -> dict:
    """Registers, stack (spills) and shared memory of a compiled kernel, from cuobjdump."""
    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kernel.cubin"
        path.write_bytes(cubin)
        usage = subprocess.run([str(tool), "--dump-resource-usage", str(path)], capture_output=True, text=True,
                               check=True).stdout
    return {name.lower(): int(value) for name, value in re.findall(r"\b(REG|STACK|SHARED):(\d+)", usage)}


def programs_per_sm(usage: dict, num_warps: int) -> int:
    """How many programs of this kernel one multiprocessor holds at once (its occupancy)."""
    registers = -(-max(usage["reg"], 1) // 8) * 8
    by_shared = SHARED_BYTES_PER_SM // (usage["shared"] + 1024) if usage["shared"] else PROGRAMS_PER_SM
    return min(REGISTERS_PER_SM // (registers * 32 * num_warps), WARPS_PER_SM // num_warps, PROGRAMS_PER_SM,
               by_shared)


def probe(rows, variants: dict) -> list[dict]:
    """Compile each row under each variant (name -> settings of reduce.py, restored after)."""
    import torch
    import triton

    reduce_module = importlib.import_module("stridelint.reference.reduce")
    results = []
    for shape, dim, dtype_name, mask_kind in rows:
        for name, overrides in variants.items():
            with coverage.overridden(reduce_module, overrides):
                plan, arguments, options = coverage.launch(reduce_module, torch, shape, dim,
                                                           getattr(torch, dtype_name), mask_kind)
                compiled = compile_launch(reduce_module, triton, torch, arguments, options)
            usage = resource_usage(triton, compiled.asm["cubin"])
            results.append({
                "shape": list(shape), "dim": dim, "dtype": dtype_name, "mask": mask_kind, "variant": name,
                "plan": reduce_module.describe_plan(plan), "tile": [plan.block_i, plan.block_k],
                "num_warps": options["num_warps"], **usage,
                "programs_per_sm": programs_per_sm(usage, options["num_warps"]),
                "load_widths": load_widths(compiled.asm["ptx"]),
            })
    return results


def summary(results) -> list[str]:
    """One line a variant: how many rows spill or read x element by element, and the ranges of
    registers and programs a multiprocessor."""
    lines = []
    for name in dict.fromkeys(row["variant"] for row in results):
        rows = [row for row in results if row["variant"] == name]
        spills = sum(row["stack"] > 0 for row in rows)
        narrow = sum(2 in row["load_widths"] for row in rows)
        registers = sorted(row["reg"] for row in rows)
        programs = sorted(row["programs_per_sm"] for row in rows)
        lines.append(f"{name or 'settings'}: {len(rows)} rows, {spills} spill, {narrow} read x element by element; "
                     f"registers {registers[0]}-{registers[-1]}, programs a multiprocessor {programs[0]}-{programs[-1]}")
    return lines


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", nargs="+", default=bench.FULL_SHAPES, metavar="B,M,N")
    parser.add_argument("--dims", type=int, nargs="+", default=[0, 1, 2], choices=[0, 1, 2])
    parser.add_argument("--dtypes", nargs="+", default=["fp16"], choices=list(bench.DTYPES))
    parser.add_argument("--masks", nargs="+", default=bench.MASKS, choices=bench.MASKS)
    parser.add_argument("--set", dest="settings", action="append", type=bench.setting, default=[],
                        metavar="NAME=VALUE", help="override a setting of stridelint/reference/reduce.py")
    sets = parser.add_mutually_exclusive_group()
    sets.add_argument("--sweep", choices=sorted(sweep.CASE_SETS), metavar="SET",
                      help="instead of the rows above, each case of tile_sweep.py's SET under each of its variants")
    sets.add_argument("--variants-of", choices=sorted(sweep.VARIANT_SETS), metavar="SET",
                      help="the rows above under each variant of tile_sweep.py's SET (what --set S would run)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    try:
        args.shapes = [tuple(int(size) for size in text.split(",")) for text in args.shapes]
    except ValueError:
        parser.error("--shapes takes B,M,N triples of integers")
    if any(len(shape) != 3 for shape in args.shapes):
        parser.error("--shapes takes B,M,N triples of integers")
    args.settings = dict(args.settings)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if os.environ.get("TRITON_INTERPRET") == "1":
        print("error: unset TRITON_INTERPRET: the probe compiles the kernel, the interpreter runs it",
              file=sys.stderr)
        return 2
    import triton

    tools = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    if not ((tools / "ptxas").exists() and (tools / "cuobjdump").exists()):
        print(f"error: this Triton has no ptxas and cuobjdump in {tools} (its NVIDIA backend)", file=sys.stderr)
        return 2
    kernel = importlib.import_module("stridelint.reference.reduce")
    bench.apply_settings(kernel, args.settings)
    rows = coverage.benchmark_rows(args.shapes, args.dims, args.dtypes, args.masks)
    variants = {"": {}}
    if args.sweep:
        rows, variants = sweep.CASE_SETS[args.sweep], sweep.VARIANT_SETS[args.sweep]
    elif args.variants_of:
        variants = sweep.VARIANT_SETS[args.variants_of]
    results = probe(rows, variants)
    for row in results:
        loads = " ".join(f"{count}x{width}B" for width, count in row["load_widths"].items())
        variant = f" {row['variant']}" if row["variant"] else ""
        print(f"{'x'.join(map(str, row['shape']))} dim {row['dim']} {row['dtype']} {row['mask']}{variant}: {row['plan']}, "
              f"{row['reg']} registers, {row['stack']} B stack, {row['programs_per_sm']} a multiprocessor, loads {loads}")
    print()
    for line in summary(results):
        print(line)
    if args.json:
        args.json.write_text(json.dumps({"arch": f"sm_{ARCH}", "settings": args.settings, "rows": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
