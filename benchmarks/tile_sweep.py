"""Sweep the reference reduce kernel's layout choices on the cases where they matter.

Each variant overrides some of the layout constants of stridelint/reference/reduce.py (tile
shapes, warps, when to split the reduced dim across programs, mask prefetch); ``default`` is
the shipped choice and ``before`` approximates the layout of the kernel before this work (one
row per program for row tiles, 128 x 128 column tiles for long reduced dims, no split, no mask
prefetch, no unrolling). Times are medians of
triton.testing.do_bench; "of copy" is bytes to move (benchmarks/reduce_bench.py) over copy
bandwidth. The kernel's autotune is switched off here: each variant times the heuristic plan
its constants give (the autotune's own candidates are listed in reduce.py's *_CANDIDATES).

    python benchmarks/tile_sweep.py [--cases rows columns short] [--json out.json]   # needs CUDA
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NO_SPLIT = {"SPLIT_MIN_ELEMENTS": 2**62}
CASE_SETS = {  # name -> [(shape, dim, x dtype, mask kind)]
    # The reduced dim is x's contiguous one (row tiles).
    "rows": [
        ((8192, 4, 8192), 2, "float16", "none"),
        ((8192, 4, 8192), 2, "float16", "dense"),
        ((8192, 4, 8192), 2, "float16", "bcast_n"),
        ((8192, 4, 8192), 2, "float16", "bcast_m"),
        ((4, 8192, 8192), 2, "float16", "bcast_n"),
        ((4, 8192, 8192), 2, "float16", "bcast_m"),
        ((65536, 4, 8192), 2, "float16", "bcast_m"),
    ],
    # A long reduced dim that is not x's contiguous one (2-D column tiles, split).
    "columns": [
        ((4, 8192, 8192), 1, "float16", "none"),
        ((4, 8192, 8192), 1, "float16", "dense"),
        ((4, 8192, 8192), 1, "float16", "bcast_n"),
        ((4, 8192, 8192), 1, "float16", "bcast_m"),
        ((8192, 4, 8192), 0, "float16", "none"),
        ((8192, 4, 8192), 0, "float16", "dense"),
        ((8192, 4, 8192), 0, "float16", "bcast_n"),
        ((8192, 4, 8192), 0, "float16", "bcast_m"),
        ((65536, 4, 8192), 0, "float16", "bcast_n"),
        ((65536, 4, 8192), 0, "float16", "bcast_m"),
    ],
    # A short reduced dim that is not contiguous (one-row tiles).
    "short": [
        ((8192, 4, 8192), 1, "float16", "none"),
        ((8192, 4, 8192), 1, "float16", "dense"),
        ((8192, 4, 8192), 1, "float16", "bcast_m"),
        ((8192, 4, 8192), 1, "float16", "bcast_n"),
        ((4, 8192, 8192), 0, "float16", "bcast_m"),
        ((4, 8192, 8192), 0, "float16", "dense"),
        ((4, 8192, 8192), 0, "float16", "bcast_n"),
        ((65536, 4, 8192), 1, "float16", "bcast_n"),
    ],
}
VARIANT_SETS = {  # name -> {variant name: constant overrides}
    "rows": {
        "default": {},
        "before": {"REUSE_ROWS": 1, "REUSE_TILE": 2048, "REUSE_WARPS": 4, "ROW_UNROLL": 1, **NO_SPLIT},
        "row_u1": {"ROW_UNROLL": 1},
        "row_u4": {"ROW_UNROLL": 4},
        "reuse_u2": {"REUSE_UNROLL": 2},
        "reuse_t4096_w4_u2": {"REUSE_TILE": 4096, "REUSE_WARPS": 4, "REUSE_UNROLL": 2},
        "reuse_t4096_w8": {"REUSE_TILE": 4096},
        "reuse_prefetch": {"PREFETCH_ROWS": True},
        "default_again": {},
    },
    "columns": {
        "default": {},
        "before": {"ONE_ROW_MAX_K": 0, **NO_SPLIT, "PREFETCH_COLUMNS": False},
        "long_u1": {"LONG_UNROLL": 1},
        "long_u2": {"LONG_UNROLL": 2},
        "long_c1024_w4_u4": {"LONG_COLUMNS": 1024, "LONG_WARPS": 4},
        "long_c1024_w4_u2": {"LONG_COLUMNS": 1024, "LONG_WARPS": 4, "LONG_UNROLL": 2},
        "long_c4096_w8_u2": {"LONG_COLUMNS": 4096, "LONG_WARPS": 8, "LONG_UNROLL": 2},
        "split16": {"SPLIT_TARGET_PROGRAMS_PER_SM": 16, "SPLIT_MIN_PROGRAMS_PER_SM": 8},
        "split4": {"SPLIT_TARGET_PROGRAMS_PER_SM": 4},
        "split6": {"SPLIT_TARGET_PROGRAMS_PER_SM": 6},
        "split12": {"SPLIT_TARGET_PROGRAMS_PER_SM": 12},
        "two_d_split": {"ONE_ROW_MAX_K": 0},
        "two_d_nosplit": {"ONE_ROW_MAX_K": 0, **NO_SPLIT},
        "noprefetch": {"PREFETCH_COLUMNS": False},
        "default_again": {},
    },
    "short": {
        "default": {},
        "c1024": {"ONE_ROW_COLUMNS": 1024},  # the default until 2026-12-04
        "c4096_w8": {"ONE_ROW_COLUMNS": 4096, "ONE_ROW_WARPS": 8},
        "u2": {"ONE_ROW_UNROLL": 2},
        "u4": {"ONE_ROW_UNROLL": 4},
        "noprefetch": {"PREFETCH_COLUMNS": False},
        "default_again": {},
    },
}


def main(argv=None) -> int:
    import torch

    import benchmarks.reduce_bench as bench
    reduce_module = importlib.import_module("stridelint.reference.reduce")  # the module, not the function
    reduce_module.AUTOTUNE = False  # time the plan each variant's constants give

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=sorted(CASE_SETS), default=sorted(CASE_SETS))
    parser.add_argument("--variants", nargs="+", help="only these variant names")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    timer = bench.Timer("cuda", quick=False)
    copy = bench.copy_bandwidth(torch, "cuda", timer, quick=False)
    print(f"copy bandwidth {copy / 1e9:.0f} GB/s", flush=True)
    rows = []
    for case_set in args.cases:
        variants = {name: overrides for name, overrides in VARIANT_SETS[case_set].items()
                    if not args.variants or name in args.variants}
        for shape, dim, dtype_name, mask_kind in CASE_SETS[case_set]:
            x, mask, scale = bench.make_inputs(torch, shape, getattr(torch, dtype_name), mask_kind, "cuda")
            expected = bench.eager_reduce(x, dim, mask, scale).float()
            tolerance = 2e-2 * expected.abs().max().item() + 1e-2
            line = [f"{'x'.join(map(str, shape))} dim={dim} {mask_kind}"]
            for name, overrides in variants.items():
                saved = {key: getattr(reduce_module, key) for key in overrides}
                try:
                    for key, value in overrides.items():
                        setattr(reduce_module, key, value)
                    expanded = None if mask is None else mask.expand(x.shape)
                    plan = reduce_module._plan(x, dim, expanded)
                    out = reduce_module.reduce(x, dim, mask, scale)
                    ok = (out.float() - expected).abs().max().item() <= tolerance
                    seconds = timer(lambda: reduce_module.reduce(x, dim, mask, scale, out=out))
                finally:
                    for key, value in saved.items():
                        setattr(reduce_module, key, value)
                fraction = bench.bytes_to_move(x, mask, scale, out) / seconds / copy
                rows.append({"set": case_set, "shape": shape, "dim": dim, "dtype": dtype_name, "mask": mask_kind,
                             "variant": name, "plan": plan._asdict(), "us": seconds * 1e6,
                             "of_copy": fraction, "ok": ok})
                line.append(f"{name} {seconds * 1e6:.0f}us {fraction:.0%}{'' if ok else ' WRONG'}")
            print(" | ".join(line), flush=True)
            del x, mask, scale, expected
            torch.cuda.empty_cache()
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
    best = {}
    for row in rows:
        key = (row["set"], tuple(row["shape"]), row["dim"], row["mask"])
        if key not in best or row["us"] < best[key]["us"]:
            best[key] = row
    print("\nbest variant per case:")
    for key, row in best.items():
        default = next(r for r in rows if (r["set"], tuple(r["shape"]), r["dim"], r["mask"]) == key
                       and r["variant"] == "default") if any(r["variant"] == "default" for r in rows) else row
        print(f"  {key}: {row['variant']} {row['us']:.0f}us {row['of_copy']:.0%} (default {default['us']:.0f}us "
              f"{default['of_copy']:.0%})")
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    status = main()
    print(f"total {time.perf_counter() - started:.0f} s")
    sys.exit(status)
