"""Does where x lies in memory change the reduce kernel's speed against Inductor's?

Session 28 timed one kernel on several H100s: its row tile took 256 µs on most cards and 264 on
one (and on session 26's card; 8192x4x8192 summed over N, dense mask), while Inductor took
253-255 on every card. On that slow card, the same 32768 x 8192 rows at 4x8192x8192 took 260. So the placement of x may matter
as well as the card. This probe keeps the card and the values and moves x: each offset places
x's copy that many KiB into one buffer. It times the kernel under each sweep variant and
``torch.compile`` (default) on the same view, and checks each sum against eager. A variant that
keeps up with Inductor at every offset does not depend on where x lies. One call answers this on
whatever card it draws. Session 29 answered it on ten cards: within 0.3% over the offsets for every
variant and Inductor (docs/kernel-benchmarks.md, "Session 29"); the gated call there runs it first.

    python benchmarks/placement_probe.py                         # needs CUDA; 8192x4x8192, dim 2, dense
    python benchmarks/placement_probe.py --variants default row_1x2048_w8_u1 --offsets-kib 0 1024 3072
    python benchmarks/placement_probe.py --quick                 # tiny, on CPU through Triton's interpreter
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import benchmarks.reduce_bench as bench  # found through the path above (it imports no torch)
import benchmarks.sweep_coverage as coverage
import benchmarks.tile_sweep as sweep

# 0 and 2 MiB steps (the allocator's large-segment granule) with odd MiB and a 64 KiB step between.
DEFAULT_OFFSETS_KIB = [0, 64, 1024, 2048, 3072, 4096, 6144, 8192, 16384, 32768]
# The default row tile and others that keep fewer bytes in flight a multiprocessor (16 B loads at
# 16 programs: 128 KiB; 1x2048 w8: 32; 1x1024 w8 and 1x2048 w16, 8 B loads: 16, as Inductor's).
DEFAULT_VARIANTS = ["default", "row_1x2048_w8_u1", "row_1x1024_w8_u1", "row_1x2048_w16_u1", "row_1x4096_w16_u1"]
ALL_VARIANTS = {name: overrides for variants in sweep.VARIANT_SETS.values() for name, overrides in variants.items()}
INDUCTOR = "inductor"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", metavar="B,M,N", help="default: 8192,4,8192 (4,3,64 with --quick)")
    parser.add_argument("--dim", type=int, default=2, choices=[0, 1, 2])
    parser.add_argument("--dtype", default="fp16", choices=list(bench.DTYPES))
    parser.add_argument("--mask", default="dense", choices=bench.MASKS)
    parser.add_argument("--offsets-kib", type=int, nargs="+", metavar="KIB",
                        help=f"default: {' '.join(map(str, DEFAULT_OFFSETS_KIB))} (0 64 with --quick)")
    parser.add_argument("--variants", nargs="+", default=DEFAULT_VARIANTS, choices=sorted(ALL_VARIANTS),
                        metavar="NAME", help="tile_sweep.py variants to time (default: %(default)s)")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--quick", action="store_true", help="a tiny shape on CPU (Triton's interpreter)")
    parser.add_argument("--json", type=Path, metavar="PATH")
    args = parser.parse_args(argv)
    args.shape = args.shape or ("4,3,64" if args.quick else "8192,4,8192")
    args.offsets_kib = args.offsets_kib or ([0, 64] if args.quick else DEFAULT_OFFSETS_KIB)
    try:
        args.shape = tuple(int(size) for size in args.shape.split(","))
    except ValueError:
        parser.error("--shape takes B,M,N integers")
    if len(args.shape) != 3 or min(args.shape) < 1:
        parser.error("--shape takes three positive integers B,M,N")
    if min(args.offsets_kib) < 0:
        parser.error("--offsets-kib must not be negative")
    return args


def placed_views(torch, x, offsets_kib):
    """x's values at each offset (KiB) into one buffer, as contiguous views of x's shape."""
    step = 1024 // x.element_size()
    buffer = torch.empty(x.numel() + max(offsets_kib) * step, dtype=x.dtype, device=x.device)
    for offset in offsets_kib:
        view = buffer[offset * step: offset * step + x.numel()].view(x.shape)
        view.copy_(x)
        yield offset, view


def probe(torch, args, device) -> list[dict]:
    """One row per offset: the time of each variant and of Inductor, and whether each summed right."""
    reduce_module = importlib.import_module("stridelint.reference.reduce")
    reduce_module.AUTOTUNE = False
    timer = bench.Timer(device, args.quick, "clean")
    dtype = getattr(torch, bench.DTYPES[args.dtype])
    x, mask, scale = bench.make_inputs(torch, args.shape, dtype, args.mask, device)
    compiled = None if args.no_compile or device != "cuda" else bench.make_compiled(torch, ["default"])["default"]
    rows = []
    for offset, view in placed_views(torch, x, args.offsets_kib):
        expected = bench.eager_reduce(view, args.dim, mask, scale).float()
        tolerance = bench.sum_tolerance(expected)
        row = {"offset_kib": offset, "us": {}, "ok": {}}
        for name in args.variants:
            with coverage.overridden(reduce_module, ALL_VARIANTS[name]):
                out = reduce_module.reduce(view, args.dim, mask, scale)
                row["ok"][name] = bench.max_error(out, expected) <= tolerance
                row["us"][name] = timer(functools.partial(reduce_module.reduce, view, args.dim, mask, scale,
                                                          out=out)) * 1e6
        if compiled is not None:
            row["ok"][INDUCTOR] = bench.max_error(compiled(view, args.dim, mask, scale), expected) <= tolerance
            row["us"][INDUCTOR] = timer(functools.partial(compiled, view, args.dim, mask, scale)) * 1e6
        rows.append(row)
        print(f"offset {offset:>6} KiB: " + " | ".join(
            f"{name} {us:.0f}us{'' if row['ok'][name] else ' WRONG'}" for name, us in row["us"].items()), flush=True)
    return rows


def summary(rows, variants) -> list[str]:
    """Per variant: its spread over the offsets, and its worst time against Inductor's at one offset."""
    lines = []
    for name in variants:
        times = [row["us"][name] for row in rows]
        line = f"{name}: {min(times):.0f}-{max(times):.0f} us over {len(rows)} offsets ({max(times) / min(times) - 1:.1%} spread)"
        if all(INDUCTOR in row["us"] for row in rows):
            worst = max(rows, key=lambda row: row["us"][name] / row["us"][INDUCTOR])
            line += (f"; worst against Inductor {worst['us'][name] / worst['us'][INDUCTOR]:.3f}x "
                     f"(offset {worst['offset_kib']} KiB)")
        lines.append(line)
    return lines


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        if not args.quick:
            print("error: no CUDA device: run with --quick for a CPU smoke test", file=sys.stderr)
            return 2
        os.environ["TRITON_INTERPRET"] = "1"  # before the kernel is imported
    card = bench.card_identity(torch, device)
    print(f"{torch.cuda.get_device_name() if device == 'cuda' else 'cpu'}{bench.card_note(card)}: "
          f"{'x'.join(map(str, args.shape))} dim {args.dim} {args.dtype} {args.mask}")
    rows = probe(torch, args, device)
    variants = [*args.variants, *([INDUCTOR] if all(INDUCTOR in row["us"] for row in rows) else [])]
    print()
    print("\n".join(summary(rows, variants)))
    if args.json:
        args.json.write_text(json.dumps({
            "card": card, "shape": list(args.shape), "dim": args.dim, "dtype": args.dtype, "mask": args.mask,
            "variants": {name: ALL_VARIANTS.get(name, {}) for name in args.variants}, "rows": rows}, indent=1))
    return 0 if all(all(row["ok"].values()) for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
