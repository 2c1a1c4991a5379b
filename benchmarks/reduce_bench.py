"""Benchmark the reference reduce kernel and its launch-metadata hook.

On a GPU (written for an H200): device copy bandwidth; the kernel's effective bandwidth for
each shape, dim, dtype and mask pattern beside torch eager and torch.compile doing the same job;
and the naive vs shipped launch-metadata hook on a mask broadcast over N.

    python benchmarks/reduce_bench.py [--json results.json]
    python benchmarks/reduce_bench.py --quick    # tiny shapes; on CPU via Triton's interpreter
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

# Run from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FULL_SHAPES = ["8192,4,8192", "65536,4,8192", "4,8192,8192"]
QUICK_SHAPES = ["2,4,32"]
MASKS = ["none", "dense", "bcast_n", "bcast_m"]
DTYPES = {"fp16": "float16", "bf16": "bfloat16"}
HOOK_SHAPE = (65536, 4, 8192)
QUICK_HOOK_ELEMENTS = 2**20


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny shapes, few repeats: a smoke test that runs on CPU")
    parser.add_argument("--shapes", nargs="+", metavar="B,M,N", help=f"default: {' '.join(FULL_SHAPES)}")
    parser.add_argument("--dims", type=int, nargs="+", default=[0, 1, 2], choices=[0, 1, 2])
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--masks", nargs="+", default=MASKS, choices=MASKS)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (compiling dominates the runtime)")
    parser.add_argument("--no-hook", action="store_true", help="skip the launch-metadata hook comparison")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    args.shapes = [tuple(int(size) for size in shape.split(",")) for shape in args.shapes or (
        QUICK_SHAPES if args.quick else FULL_SHAPES)]
    return args


class Timer:
    """Median time of a callable: triton.testing.do_bench on CUDA, wall clock on CPU."""

    def __init__(self, device, quick):
        self.device, self.quick = device, quick

    def __call__(self, fn) -> float:
        if self.device == "cuda":
            from triton.testing import do_bench

            return do_bench(fn, warmup=10 if self.quick else 25, rep=20 if self.quick else 100,
                            return_mode="median") / 1e3
        from stridelint.reference.measure import median_seconds

        return median_seconds(fn, self.device, repeats=1 if self.quick else 5)


def copy_bandwidth(torch, device, timer, quick) -> float:
    """Bytes read plus written per second by a large device-to-device copy."""
    size = 2**24 if quick else 2**31
    src = torch.empty(size, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    return 2 * size / timer(lambda: dst.copy_(src))


def make_inputs(torch, shape, dtype, mask_kind, device):
    """x contiguous (N fastest); a bool mask stored at its physical shape (expanded inside
    ``reduce`` and by eager broadcasting); a per-row fp32 scale broadcast over N."""
    batch, rows, cols = shape
    x = torch.randn(shape, dtype=dtype, device=device)
    stored_mask_shape = {"none": None, "dense": shape, "bcast_n": (batch, rows, 1), "bcast_m": (batch, 1, cols)}
    mask_shape = stored_mask_shape[mask_kind]
    mask = None if mask_shape is None else torch.rand(mask_shape, device=device) < 0.75
    scale = torch.rand(batch, rows, 1, device=device)
    return x, mask, scale


def bytes_to_move(x, mask, scale, out) -> int:
    """x rows (along its contiguous N) that hold a kept element, plus the physical mask and
    scale, plus the output: a row the mask drops entirely is never read."""
    kept_row_fraction = 1.0 if mask is None else mask.any(dim=-1).float().mean().item()
    return (
        round(x.nbytes * kept_row_fraction)
        + (0 if mask is None else mask.untyped_storage().nbytes())
        + scale.untyped_storage().nbytes()
        + out.nbytes
    )


def eager_reduce(x, dim, mask, scale):
    """The job done the natural eager way: fp32 scale promotes x, so the sum accumulates in fp32."""
    scaled = x * scale
    if mask is not None:
        scaled = scaled.masked_fill(mask == 0, 0)
    return scaled.sum(dim).to(x.dtype)


def bench_reduce(torch, args, device, timer, copy_bytes_per_s):
    from stridelint.reference import reduce

    compiled = None
    if not args.no_compile and device == "cuda":
        import torch._dynamo

        # Every shape, dim and mask pattern compiles its own graph; keep them all.
        torch._dynamo.config.cache_size_limit = 1024
        torch._dynamo.config.accumulated_cache_size_limit = 4096
        compiled = torch.compile(eager_reduce, dynamic=False)
    rows = []
    for shape in args.shapes:
        for dtype_name in args.dtypes:
            dtype = getattr(torch, DTYPES[dtype_name])
            for mask_kind in args.masks:
                x, mask, scale = make_inputs(torch, shape, dtype, mask_kind, device)
                for dim in args.dims:
                    out = reduce(x, dim, mask, scale)
                    expected = eager_reduce(x, dim, mask, scale)
                    tolerance = 2e-2 * expected.float().abs().max().item() + 1e-2
                    row = {
                        "shape": list(shape), "dim": dim, "dtype": dtype_name, "mask": mask_kind,
                        "bytes": bytes_to_move(x, mask, scale, out),
                        "max_error": (out.float() - expected.float()).abs().max().item(),
                    }
                    row["correct"] = row["max_error"] <= tolerance
                    del expected
                    row["kernel_s"] = timer(lambda: reduce(x, dim, mask, scale, out=out))
                    row["eager_s"] = timer(lambda: eager_reduce(x, dim, mask, scale))
                    if compiled is not None:
                        start = time.perf_counter()
                        compiled(x, dim, mask, scale)
                        row["compile_s"] = time.perf_counter() - start
                        row["compiled_s"] = timer(lambda: compiled(x, dim, mask, scale))
                    row["kernel_bytes_per_s"] = row["bytes"] / row["kernel_s"]
                    row["fraction_of_copy"] = row["kernel_bytes_per_s"] / copy_bytes_per_s
                    rows.append(row)
                    print(reduce_table_line(row), flush=True)
                del x, mask, scale, out
                if device == "cuda":
                    torch.cuda.empty_cache()
    return rows


REDUCE_HEADER = (
    "| shape | dim | dtype | mask | MB to move | kernel µs | kernel GB/s | of copy | eager µs | compiled µs | ok |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


def reduce_table_line(row) -> str:
    compiled = f"{row['compiled_s'] * 1e6:.0f}" if "compiled_s" in row else "-"
    return (
        f"| {'x'.join(map(str, row['shape']))} | {row['dim']} | {row['dtype']} | {row['mask']} "
        f"| {row['bytes'] / 1e6:.1f} | {row['kernel_s'] * 1e6:.0f} | {row['kernel_bytes_per_s'] / 1e9:.0f} "
        f"| {row['fraction_of_copy']:.0%} | {row['eager_s'] * 1e6:.0f} | {compiled} | {'yes' if row['correct'] else 'NO'} |"
    )


def bench_hook(torch, device, quick):
    from stridelint.reference.measure import compare_hooks

    logical = QUICK_HOOK_ELEMENTS if quick else HOOK_SHAPE[0] * HOOK_SHAPE[1] * HOOK_SHAPE[2]
    reports = []
    print("\n| mask | variant | peak extra MB | bytes / physical mask element | ms | equal |\n|---|---|---|---|---|---|")
    for mask_dtype in (torch.bool, torch.int32):
        report = compare_hooks(logical, device, mask_dtype, dim=2, repeats=1 if quick else 5)
        physical_elements = report["mask_storage_bytes"] // mask_dtype.itemsize
        for variant in ("naive", "pr_style", "shipped"):
            measured = report[variant]
            measured["bytes_per_physical_element"] = measured["peak_bytes"] / physical_elements
            print(
                f"| {report['mask_dtype']} {'x'.join(map(str, report['shape']))} | {variant} "
                f"| {measured['peak_bytes'] / 1e6:.3f} | {measured['bytes_per_physical_element']:.1f} "
                f"| {measured['seconds'] * 1e3:.3f} | {report['equal']} |"
            )
        reports.append(report)
    return reports


def main(argv=None):
    args = parse_args(argv)
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        if not args.quick:
            sys.exit("no CUDA device: run with --quick for a CPU smoke test")
        # Must be set before stridelint.reference (and so the kernel) is imported.
        os.environ["TRITON_INTERPRET"] = "1"
    import triton

    timer = Timer(device, args.quick)
    started = time.perf_counter()
    device_name = torch.cuda.get_device_name() if device == "cuda" else platform.processor() or "cpu"
    copy_bytes_per_s = copy_bandwidth(torch, device, timer, args.quick)
    print(f"device: {device_name} | torch {torch.__version__} | triton {triton.__version__}")
    print(f"device copy bandwidth (read + write): {copy_bytes_per_s / 1e9:.0f} GB/s\n")
    print(REDUCE_HEADER, flush=True)
    reduce_rows = bench_reduce(torch, args, device, timer, copy_bytes_per_s)
    ratios = [row["fraction_of_copy"] for row in reduce_rows]
    if ratios:
        print(f"\nkernel / copy bandwidth: median {statistics.median(ratios):.0%}, min {min(ratios):.0%}")
    hook_reports = [] if args.no_hook else bench_hook(torch, device, args.quick)
    elapsed = time.perf_counter() - started
    print(f"\ntotal {elapsed:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({
            "device": device_name, "torch": torch.__version__, "triton": triton.__version__,
            "copy_bytes_per_s": copy_bytes_per_s, "reduce": reduce_rows, "hook": hook_reports,
            "elapsed_s": elapsed,
        }, indent=2))
    if not all(row["correct"] for row in reduce_rows) or not all(report["equal"] for report in hook_reports):
        sys.exit("some results did not match the reference")


if __name__ == "__main__":
    main()
