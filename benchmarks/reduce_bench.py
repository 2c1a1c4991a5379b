"""Benchmark the reference reduce kernel and its launch-metadata hook.

On a GPU (written for an H200): device copy bandwidth; the kernel's time and effective
bandwidth for each shape, dim, dtype and mask pattern beside torch eager and torch.compile
(default and max-autotune; the first call, which compiles, is timed apart) doing the same job;
a summary line (masked rows where a compiled version beats the kernel by more than 2%, rows
under 85% of copy bandwidth); and the naive vs shipped launch-metadata hook on a mask broadcast
over N.

    python benchmarks/reduce_bench.py [--json results.json]
    python benchmarks/reduce_bench.py --compile-modes default --shapes 4,8192,8192
    python benchmarks/reduce_bench.py --summarize a.json b.json   # one summary over several runs
    python benchmarks/reduce_bench.py --quick    # tiny shapes; on CPU via Triton's interpreter
    python benchmarks/reduce_bench.py --autotune --compare-heuristic   # opt-in autotune vs heuristic
    python benchmarks/reduce_bench.py --flush zero   # as triton's do_bench (runs before session 20)
    python benchmarks/reduce_bench.py --set ROW_TILE=2048 --set ROW_WARPS=8   # kernel settings overridden

The plan the kernel used is printed per row, and its first call (which compiles and, with
--autotune, tunes the layout: stridelint/reference/reduce.py) is timed apart ("tune s").
"""

from __future__ import annotations

import argparse
import ast
import importlib
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
COMPILE_MODES = ["default", "max-autotune", "max-autotune-no-cudagraphs"]
# Compiled modes timed again from a CUDA graph with --graph; max-autotune replays its own graphs.
GRAPH_MODES = ("default", "max-autotune-no-cudagraphs")
HOOK_SHAPE = (65536, 4, 8192)
QUICK_HOOK_ELEMENTS = 2**20
# A compiled version "wins" a row when it is more than this much faster than the kernel.
WIN_MARGIN = 0.02
TARGET_OF_COPY = 0.85
# How the timer empties L2 before each timed call (``Timer``), and the size of its buffers.
FLUSHES = ("clean", "zero")
FLUSH_BYTES = 2**28


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny shapes, few repeats: a smoke test that runs on CPU")
    parser.add_argument("--shapes", nargs="+", metavar="B,M,N", help=f"default: {' '.join(FULL_SHAPES)}")
    parser.add_argument("--dims", type=int, nargs="+", default=[0, 1, 2], choices=[0, 1, 2])
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=list(DTYPES))
    parser.add_argument("--masks", nargs="+", default=MASKS, choices=MASKS)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (compiling dominates the runtime)")
    parser.add_argument("--compile-modes", nargs="+", default=COMPILE_MODES[:2], choices=COMPILE_MODES)
    parser.add_argument("--no-eager", action="store_true", help="skip torch eager")
    parser.add_argument("--autotune", action="store_true",
                        help="switch on the kernel's opt-in autotune (default: its heuristic plan)")
    parser.add_argument("--compare-heuristic", action="store_true",
                        help="also time the kernel's heuristic (untuned) plan on each row")
    parser.add_argument("--summarize", nargs="+", type=Path, metavar="JSON",
                        help="print the table and summary of earlier --json runs, run nothing")
    parser.add_argument("--no-hook", action="store_true", help="skip the launch-metadata hook comparison")
    parser.add_argument("--graph", action="store_true",
                        help="also time one call replayed from a CUDA graph (device time without host work) for "
                             "the kernel and the compiled modes in GRAPH_MODES")
    parser.add_argument("--flush", default=FLUSHES[0], choices=FLUSHES,
                        help="how L2 is emptied before each timed call: clean (default; the "
                             "flush's own write-back done before timing) or zero (triton's "
                             "do_bench, whose write-back the timed call pays)")
    parser.add_argument("--set", dest="settings", action="append", type=setting, default=[], metavar="NAME=VALUE",
                        help="run with a setting of stridelint/reference/reduce.py overridden (a layout a sweep "
                             "found: benchmarks/tile_sweep.py --best-overrides); repeatable, recorded in --json")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    args.settings = dict(args.settings)
    if args.no_compile:
        args.compile_modes = []
    args.shapes = [tuple(int(size) for size in shape.split(",")) for shape in args.shapes or (
        QUICK_SHAPES if args.quick else FULL_SHAPES)]
    return args


def setting(text: str) -> tuple[str, object]:
    """``--set``'s NAME=VALUE: an upper-case name and a Python literal (checked against the
    kernel module by ``apply_settings``, once the module may be imported)."""
    name, equals, value = text.partition("=")
    if not equals or not name.isupper() or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with an upper-case NAME, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise argparse.ArgumentTypeError(f"{name}'s value is not a Python literal: {value!r} "
                                         "(a string needs quotes: NAME='evict_first')") from None


def apply_settings(module, settings: dict) -> None:
    """Set the kernel module's settings, each to a value of its own type (None where it is None)."""
    for name, value in settings.items():
        if not hasattr(module, name):
            sys.exit(f"--set {name}: {module.__name__} has no setting of that name")
        current = getattr(module, name)
        if current is not None and type(value) is not type(current):
            sys.exit(f"--set {name}: expected {type(current).__name__} (now {current!r}), got {value!r}")
    for name, value in settings.items():
        setattr(module, name, value)


def settings_arguments(settings: dict) -> str:
    """The ``--set`` arguments that give these settings (no spaces inside a value, so that each
    is one shell word)."""
    return " ".join(f"--set {name}={value!r}".replace(", ", ",") for name, value in sorted(settings.items()))


class Timer:
    """Median time of a callable: device time on CUDA, L2 flushed before every timed call (as
    triton.testing.do_bench times, warm-up and repeats chosen from a first estimate); wall clock
    on CPU.

    Flushes (``FLUSHES``): "zero" is do_bench's own, zeroing a 256 MiB buffer. It leaves L2 full
    of that buffer's dirty lines, so the timed call also pays for writing them back: 7-12 µs a
    row on an H100 (Nsight Compute, which writes L2 back first, saw the same gap on the H200), a
    tenth of a 100-µs row but a hundredth of the 1-ms copy that sets copy bandwidth
    (docs/kernel-benchmarks.md, session 20). "clean" then reads a second 256 MiB buffer, so that
    write-back is done before the timer starts and the call starts with an L2 of clean lines it
    does not read, as Nsight Compute's cache control does."""

    def __init__(self, device, quick, flush="clean"):
        self.device, self.quick, self.flush = device, quick, flush
        self._buffers = None

    def __call__(self, fn) -> float:
        if self.device == "cuda":
            return self._device_seconds(fn, warmup_ms=10 if self.quick else 25,
                                        rep_ms=20 if self.quick else 100)
        from stridelint.reference.measure import median_seconds

        return median_seconds(fn, self.device, repeats=1 if self.quick else 5)

    def _flush_l2(self, torch):
        if self._buffers is None:
            self._buffers = (torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda"),
                             torch.zeros(FLUSH_BYTES // 4, dtype=torch.float32, device="cuda"),
                             torch.empty((), dtype=torch.float32, device="cuda"))
        zeroed, read, total = self._buffers
        zeroed.zero_()
        if self.flush == "clean":
            torch.sum(read, dim=0, out=total)

    def _device_seconds(self, fn, warmup_ms, rep_ms) -> float:
        import torch

        fn()
        torch.cuda.synchronize()
        first, last = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        first.record()
        for _ in range(5):
            self._flush_l2(torch)
            fn()
        last.record()
        torch.cuda.synchronize()
        estimate_ms = max(first.elapsed_time(last) / 5, 1e-3)
        for _ in range(max(1, int(warmup_ms / estimate_ms))):
            fn()
        repeats = max(1, int(rep_ms / estimate_ms))
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
        for start, end in zip(starts, ends):
            self._flush_l2(torch)
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        return statistics.median(start.elapsed_time(end) for start, end in zip(starts, ends)) / 1e3


def graph_seconds(torch, timer, fn) -> float:
    """Device time of one call captured in a CUDA graph and replayed, L2 flushed by the timer.
    A timed call that is not replayed also waits for its host work (argument checks, the
    launch itself) whenever that takes longer than the device's flush before it; a replay does
    not, so this is the device's time alone."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()  # warm up off the capture (compiles, allocates)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    seconds = timer(graph.replay)
    del graph
    return seconds


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


def sum_tolerance(expected) -> float:
    """How far a sum may be from eager's and still count as right: 2% of its largest magnitude
    plus 0.01 (fp32 sums added in another order, then rounded to x's dtype)."""
    return 2e-2 * expected.float().abs().max().item() + 1e-2


def max_error(result, expected) -> float:
    return (result.float() - expected.float()).abs().max().item()


def eager_reduce(x, dim, mask, scale):
    """The job done the natural eager way: fp32 scale promotes x, so the sum accumulates in fp32."""
    scaled = x * scale
    if mask is not None:
        scaled = scaled.masked_fill(mask == 0, 0)
    return scaled.sum(dim).to(x.dtype)


def make_compiled(torch, modes):
    """One torch.compile of the eager job per mode, each graph specialized to its shapes."""
    import torch._dynamo

    # Every shape, dim and mask pattern compiles its own graph; keep them all.
    torch._dynamo.config.cache_size_limit = 1024
    torch._dynamo.config.accumulated_cache_size_limit = 4096
    return {mode: torch.compile(eager_reduce, dynamic=False, mode=mode) for mode in modes}


def bench_reduce(torch, args, device, timer, copy_bytes_per_s, rows, on_row=lambda: None):
    from stridelint.reference import reduce

    reduce_module = importlib.import_module("stridelint.reference.reduce")
    if args.autotune:
        reduce_module.AUTOTUNE = True
    compiled = make_compiled(torch, args.compile_modes) if device == "cuda" else {}
    graph = args.graph and device == "cuda"
    for shape in args.shapes:
        for dtype_name in args.dtypes:
            dtype = getattr(torch, DTYPES[dtype_name])
            for mask_kind in args.masks:
                x, mask, scale = make_inputs(torch, shape, dtype, mask_kind, device)
                if compiled:
                    # The inputs keep their addresses from call to call: max-autotune's CUDA
                    # graphs then read them in place instead of copying them in on every call
                    # (which made it 3x slower than default here).
                    for tensor in (x, mask, scale):
                        if tensor is not None:
                            torch._dynamo.mark_static_address(tensor)
                for dim in args.dims:
                    if device == "cuda":
                        torch.cuda.synchronize()
                    start = time.perf_counter()
                    out = reduce(x, dim, mask, scale)  # tunes the layout on first sight of this key
                    if device == "cuda":
                        torch.cuda.synchronize()
                    tune_s = time.perf_counter() - start
                    expected = eager_reduce(x, dim, mask, scale)
                    tolerance = sum_tolerance(expected)
                    row = {
                        "shape": list(shape), "dim": dim, "dtype": dtype_name, "mask": mask_kind,
                        "bytes": bytes_to_move(x, mask, scale, out),
                        "max_error": max_error(out, expected),
                    }
                    row["correct"] = row["max_error"] <= tolerance
                    row["tune_s"] = tune_s
                    row["plan"] = reduce_module.describe_plan(reduce_module.plan_for(x, dim, mask, scale))
                    row["kernel_s"] = timer(lambda: reduce(x, dim, mask, scale, out=out))
                    if graph:
                        row["kernel_graph_s"] = graph_seconds(torch, timer, lambda: reduce(x, dim, mask, scale, out=out))
                    if args.compare_heuristic:
                        saved, reduce_module.AUTOTUNE = reduce_module.AUTOTUNE, False
                        try:
                            heuristic = reduce(x, dim, mask, scale)
                            row["heuristic_correct"] = (
                                max_error(heuristic, expected) <= tolerance)
                            row["heuristic_plan"] = reduce_module.describe_plan(reduce_module._plan(
                                x, dim, None if mask is None else mask.expand(x.shape)))
                            row["heuristic_s"] = timer(lambda out=heuristic: reduce(x, dim, mask, scale, out=out))
                            row["heuristic_fraction_of_copy"] = row["bytes"] / row["heuristic_s"] / copy_bytes_per_s
                        finally:
                            reduce_module.AUTOTUNE = saved
                        del heuristic
                    if not args.no_eager:
                        row["eager_s"] = timer(lambda: eager_reduce(x, dim, mask, scale))
                    for mode, fn in compiled.items():
                        torch.cuda.synchronize()
                        start = time.perf_counter()
                        result = fn(x, dim, mask, scale)
                        torch.cuda.synchronize()
                        row[f"compile_s[{mode}]"] = time.perf_counter() - start
                        row[f"compiled_correct[{mode}]"] = (
                            max_error(result, expected) <= tolerance)
                        del result
                        row[f"compiled_s[{mode}]"] = timer(lambda fn=fn: fn(x, dim, mask, scale))
                        if graph and mode in GRAPH_MODES:
                            row[f"compiled_graph_s[{mode}]"] = graph_seconds(
                                torch, timer, lambda fn=fn: fn(x, dim, mask, scale))
                    del expected
                    row["kernel_bytes_per_s"] = row["bytes"] / row["kernel_s"]
                    row["fraction_of_copy"] = row["kernel_bytes_per_s"] / copy_bytes_per_s
                    rows.append(row)
                    print(reduce_table_line(row, copy_bytes_per_s, list(compiled)), flush=True)
                    on_row()
                del x, mask, scale, out
                if device == "cuda":
                    torch.cuda.empty_cache()
    return rows


def reduce_header(modes) -> str:
    compiled = "".join(f" {mode} µs | {mode} of copy | {mode} compile s |" for mode in modes)
    return (
        f"| shape | dim | dtype | mask | MB to move | kernel µs | kernel GB/s | of copy | eager µs |{compiled} ok "
        f"| plan | tune s | heuristic µs | heuristic of copy | heuristic plan | kernel graph µs "
        f"| default graph µs |\n"
        f"|{'---|' * (17 + 3 * len(modes))}"
    )


def reduce_table_line(row, copy_bytes_per_s, modes) -> str:
    def us(key):
        return f"{row[key] * 1e6:.0f}" if key in row else "-"

    compiled = ""
    for mode in modes:
        seconds = row.get(f"compiled_s[{mode}]")
        of_copy = f"{row['bytes'] / seconds / copy_bytes_per_s:.0%}" if seconds else "-"
        compile_s = f"{row[f'compile_s[{mode}]']:.1f}" if seconds else "-"
        compiled += f" {us(f'compiled_s[{mode}]')} | {of_copy} | {compile_s} |"
    ok = (row["correct"] and row.get("heuristic_correct", True)
          and all(row.get(f"compiled_correct[{mode}]", True) for mode in modes))
    heuristic_of_copy = f"{row['heuristic_fraction_of_copy']:.0%}" if "heuristic_fraction_of_copy" in row else "-"
    tune_s = f"{row['tune_s']:.2f}" if "tune_s" in row else "-"
    return (
        f"| {'x'.join(map(str, row['shape']))} | {row['dim']} | {row['dtype']} | {row['mask']} "
        f"| {row['bytes'] / 1e6:.1f} | {us('kernel_s')} | {row['kernel_bytes_per_s'] / 1e9:.0f} "
        f"| {row['fraction_of_copy']:.0%} | {us('eager_s')} |{compiled} {'yes' if ok else 'NO'} "
        f"| {row.get('plan', '-')} | {tune_s} | {us('heuristic_s')} | {heuristic_of_copy} "
        f"| {row.get('heuristic_plan', '-')} | {us('kernel_graph_s')} | {us('compiled_graph_s[default]')} |"
    )


def compiled_modes(rows):
    return [mode for mode in COMPILE_MODES if any(f"compiled_s[{mode}]" in row for row in rows)]


def summary(rows) -> list[str]:
    """Lines saying where the kernel misses its targets: masked rows where a compiled version
    is more than WIN_MARGIN faster, rows under TARGET_OF_COPY of copy bandwidth."""
    if not rows:
        return []
    ratios = [row["fraction_of_copy"] for row in rows]
    slow = [row for row in rows if row["fraction_of_copy"] < TARGET_OF_COPY]
    lines = [
        f"kernel / copy bandwidth: median {statistics.median(ratios):.0%}, min {min(ratios):.0%}; "
        f"rows under {TARGET_OF_COPY:.0%}: {len(slow)} of {len(rows)}"
        + "".join(f"\n  under: {row_name(row)} {row['fraction_of_copy']:.0%}" for row in slow)
    ]
    masked = [row for row in rows if row["mask"] != "none"]
    for mode in compiled_modes(rows):
        key = f"compiled_s[{mode}]"
        timed = [row for row in masked if key in row]
        wins = [row for row in timed if row[key] < row["kernel_s"] * (1 - WIN_MARGIN)]
        speedups = [row[key] / row["kernel_s"] for row in timed]
        compile_s = sum(row[f"compile_s[{mode}]"] for row in rows if key in row)
        lines.append(
            f"torch.compile {mode}: faster than the kernel by more than {WIN_MARGIN:.0%} on {len(wins)} of "
            f"{len(timed)} masked rows; compiled time / kernel time: min {min(speedups):.2f}, median "
            f"{statistics.median(speedups):.2f}; compiling took {compile_s:.0f} s in all"
            + "".join(f"\n  wins: {row_name(row)} {row[key] * 1e6:.0f} µs vs {row['kernel_s'] * 1e6:.0f} µs"
                      for row in wins)
        )
    graphed = [row for row in rows if "kernel_graph_s" in row]
    if graphed:
        slow = [row for row in graphed if row["bytes"] / row["kernel_graph_s"] < TARGET_OF_COPY * copy_of(row)]
        lines.append(
            f"device time alone (CUDA graph replay): rows under {TARGET_OF_COPY:.0%}: {len(slow)} of {len(graphed)}"
            + "".join(f"\n  under: {row_name(row)} {row['bytes'] / row['kernel_graph_s'] / copy_of(row):.0%}"
                      for row in slow))
        for mode in compiled_modes(rows):
            timed = [row for row in graphed if row["mask"] != "none" and f"compiled_s[{mode}]" in row]
            # max-autotune replays CUDA graphs itself: its timed call is already device time alone.
            wins = [row for row in timed if row.get(f"compiled_graph_s[{mode}]", row[f"compiled_s[{mode}]"])
                    < row["kernel_graph_s"] * (1 - WIN_MARGIN)]
            lines.append(
                f"  torch.compile {mode}, device time alone: faster than the kernel by more than {WIN_MARGIN:.0%} "
                f"on {len(wins)} of {len(timed)} masked rows"
                + "".join(f"\n    wins: {row_name(row)} "
                          f"{row.get(f'compiled_graph_s[{mode}]', row[f'compiled_s[{mode}]']) * 1e6:.0f} µs vs "
                          f"{row['kernel_graph_s'] * 1e6:.0f} µs" for row in wins))
    heuristic = [row for row in rows if "heuristic_s" in row]
    if heuristic:
        slow = [row for row in heuristic if row["heuristic_fraction_of_copy"] < TARGET_OF_COPY]
        lines.append(f"heuristic (untuned) plan, same run: rows under {TARGET_OF_COPY:.0%}: {len(slow)} of "
                     f"{len(heuristic)}; tuned / heuristic time: min "
                     f"{min(row['kernel_s'] / row['heuristic_s'] for row in heuristic):.2f}, max "
                     f"{max(row['kernel_s'] / row['heuristic_s'] for row in heuristic):.2f}")
        for mode in compiled_modes(rows):
            key = f"compiled_s[{mode}]"
            timed = [row for row in heuristic if row["mask"] != "none" and key in row]
            wins = [row for row in timed if row[key] < row["heuristic_s"] * (1 - WIN_MARGIN)]
            lines.append(f"  torch.compile {mode} beats the heuristic plan by more than {WIN_MARGIN:.0%} on "
                         f"{len(wins)} of {len(timed)} masked rows")
    eager = [row["eager_s"] / row["kernel_s"] for row in rows if "eager_s" in row]
    if eager:
        lines.append(f"kernel vs eager: {min(eager):.1f}x to {max(eager):.1f}x faster")
    return lines


def copy_of(row) -> float:
    """The copy bandwidth of the row's own run (kept in the row by ``bench_reduce``)."""
    return row["bytes"] / row["kernel_s"] / row["fraction_of_copy"]


def row_name(row) -> str:
    return f"{'x'.join(map(str, row['shape']))} dim {row['dim']} {row['dtype']} {row['mask']}"


def bench_hook(torch, device, quick):
    from stridelint.reference.measure import compare_hooks

    logical = QUICK_HOOK_ELEMENTS if quick else HOOK_SHAPE[0] * HOOK_SHAPE[1] * HOOK_SHAPE[2]
    reports = []
    print("\n| mask | variant | peak extra MB | x mask storage | bytes / physical mask element | ms | equal |"
          "\n|---|---|---|---|---|---|---|")
    for mask_dtype in (torch.bool, torch.int32):
        report = compare_hooks(logical, device, mask_dtype, dim=2, repeats=1 if quick else 5)
        physical_elements = report["mask_storage_bytes"] // mask_dtype.itemsize
        for variant in ("naive", "pr_style", "shipped"):
            measured = report[variant]
            measured["bytes_per_physical_element"] = measured["peak_bytes"] / physical_elements
            measured["of_mask_storage"] = measured["peak_bytes"] / report["mask_storage_bytes"]
            print(
                f"| {report['mask_dtype']} {'x'.join(map(str, report['shape']))} | {variant} "
                f"| {measured['peak_bytes'] / 1e6:.3f} | {measured['of_mask_storage']:.2f} "
                f"| {measured['bytes_per_physical_element']:.1f} "
                f"| {measured['seconds'] * 1e3:.3f} | {report['equal']} |"
            )
        reports.append(report)
    return reports


def card_identity(torch, device: str) -> str | None:
    """The GPU's UUID (which physical card ran the run), where torch reports one."""
    uuid = getattr(torch.cuda.get_device_properties(0), "uuid", None) if device == "cuda" else None
    return None if uuid is None else f"GPU-{uuid}"


def card_note(card: str | None) -> str:
    return f" ({card})" if card else ""


def settings_note(settings: dict) -> str:
    return f"; kernel settings overridden: {settings_arguments(settings)}" if settings else ""


def summarize(paths):
    """Print the table and the summary of earlier --json runs as one."""
    results = [json.loads(path.read_text()) for path in paths]
    rows = [row for result in results for row in result["reduce"]]
    copy = results[0]["copy_bytes_per_s"]
    modes = compiled_modes(rows)
    # Runs before session 20 timed with triton's do_bench, whose flush is "zero".
    flushes = sorted({result.get("flush", "zero") for result in results})
    if len(flushes) > 1:
        sys.exit(f"these runs emptied L2 in different ways ({', '.join(flushes)}): "
                 "summarize them apart")
    settings = {settings_arguments(result.get("settings", {})) for result in results}
    if len(settings) > 1:
        sys.exit(f"these runs set the kernel's settings differently ({' | '.join(sorted(settings))}): "
                 "summarize them apart")
    # Runs before session 28 did not record the card. Two cards of one model can differ by 3% on
    # one tile (docs/kernel-benchmarks.md, session 28), so one table comes from one card.
    cards = sorted({result["card"] for result in results if result.get("card")})
    if len(cards) > 1:
        sys.exit(f"these runs were timed on different cards ({', '.join(cards)}): summarize them apart")
    print(f"device: {results[0]['device']}{card_note(cards[0] if cards else None)} | "
          f"torch {results[0]['torch']} | triton {results[0]['triton']}")
    print(f"device copy bandwidth (read + write): {copy / 1e9:.0f} GB/s (first file); "
          f"L2 flush: {flushes[0]}{settings_note(results[0].get('settings', {}))}\n")
    print(reduce_header(modes))
    for row in rows:
        print(reduce_table_line(row, copy, modes))
    print()
    print("\n".join(summary(rows)))


def main(argv=None):
    args = parse_args(argv)
    if args.summarize:
        summarize(args.summarize)
        return
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        if not args.quick:
            sys.exit("no CUDA device: run with --quick for a CPU smoke test")
        # Must be set before stridelint.reference (and so the kernel) is imported.
        os.environ["TRITON_INTERPRET"] = "1"
    import triton

    apply_settings(importlib.import_module("stridelint.reference.reduce"), args.settings)
    timer = Timer(device, args.quick, args.flush)
    started = time.perf_counter()
    device_name = torch.cuda.get_device_name() if device == "cuda" else platform.processor() or "cpu"
    card = card_identity(torch, device)
    copy_bytes_per_s = copy_bandwidth(torch, device, timer, args.quick)
    print(f"device: {device_name}{card_note(card)} | torch {torch.__version__} | triton {triton.__version__}")
    print(f"device copy bandwidth (read + write): {copy_bytes_per_s / 1e9:.0f} GB/s; "
          f"L2 flush: {args.flush}{settings_note(args.settings)}\n")
    modes = args.compile_modes if device == "cuda" else []
    print(reduce_header(modes), flush=True)
    reduce_rows, hook_reports = [], []

    def write_json(complete):
        if args.json:
            args.json.write_text(json.dumps({
                "device": device_name, "card": card, "torch": torch.__version__, "triton": triton.__version__,
                "copy_bytes_per_s": copy_bytes_per_s, "flush": args.flush, "settings": args.settings,
                "reduce": reduce_rows, "hook": hook_reports,
                "elapsed_s": time.perf_counter() - started, "complete": complete,
            }, indent=2))

    # Written after every row too, so a run stopped early keeps what it measured.
    bench_reduce(torch, args, device, timer, copy_bytes_per_s, reduce_rows, lambda: write_json(False))
    print()
    print("\n".join(summary(reduce_rows)))
    if not args.no_hook:
        hook_reports.extend(bench_hook(torch, device, args.quick))
    elapsed = time.perf_counter() - started
    print(f"\ntotal {elapsed:.0f} s")
    write_json(True)
    correct = all(row["correct"] and row.get("heuristic_correct", True) for row in reduce_rows)
    if not correct or not all(report["equal"] for report in hook_reports):
        sys.exit("some results did not match the reference")


if __name__ == "__main__":
    main()
