"""Sweep tile shapes of the reference reduce kernel on the cases where the reduced dim is short.

The kernel's tile for a reduced dim of length 4 that is not x's contiguous one was [1024
columns, 4 rows]; with a mask that varies along the columns it ran at 13-19% of copy bandwidth.
This script times tiles of [BLOCK_I, 1] (one reduced row per loop step) against it and against
the shipped default, on those cases, on longer reduced dims and other element sizes: the
figures the default (`_tile_shape`) was chosen from.

    python benchmarks/tile_sweep.py [--cases short|threshold] [--json out.json]   # needs CUDA
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CASE_SETS = {  # name -> [(shape, dim, x dtype, mask kind, mask dtype)]
    "short": [
        ((8192, 4, 8192), 1, "float16", "dense", "bool"),
        ((8192, 4, 8192), 1, "bfloat16", "dense", "bool"),
        ((8192, 4, 8192), 1, "float16", "bcast_m", "bool"),
        ((8192, 4, 8192), 1, "float16", "bcast_n", "bool"),
        ((8192, 4, 8192), 1, "float16", "none", "bool"),
        ((4, 8192, 8192), 0, "float16", "dense", "bool"),
        ((4, 8192, 8192), 0, "float16", "bcast_m", "bool"),
        ((4, 8192, 8192), 0, "float16", "bcast_n", "bool"),
        ((4, 8192, 8192), 0, "float16", "none", "bool"),
        ((65536, 4, 8192), 1, "float16", "dense", "bool"),
    ],
    # How long may the reduced dim be before one-row tiles lose? And other element sizes.
    "threshold": [
        ((2048, 16, 8192), 1, "float16", "dense", "bool"),
        ((512, 64, 8192), 1, "float16", "dense", "bool"),
        ((128, 256, 8192), 1, "float16", "dense", "bool"),
        ((32, 1024, 8192), 1, "float16", "dense", "bool"),
        ((512, 64, 8192), 1, "float16", "none", "bool"),
        ((128, 256, 8192), 1, "float16", "none", "bool"),
        ((8192, 4, 8192), 1, "float32", "dense", "bool"),
        ((8192, 4, 8192), 1, "float16", "dense", "int32"),
        ((8192, 4, 8192), 1, "float32", "none", "bool"),
        ((8192, 4, 256), 1, "float16", "dense", "bool"),
    ],
}
VARIANT_SETS = {  # name -> (BLOCK_I, BLOCK_K, num_warps) when the reduced dim is not x's
    # contiguous one; None: the shipped default
    "short": {
        "default": None,
        "old_2d_i1024_k4_w4": (1024, 4, 4),  # what the kernel chose here before the sweep
        "k1_i1024_w4": (1024, 1, 4),
        "k1_i2048_w4": (2048, 1, 4),
        "k1_i2048_w8": (2048, 1, 8),
        "k1_i4096_w8": (4096, 1, 8),
        "k2_i1024_w4": (1024, 2, 4),
    },
    "threshold": {
        "default": None,
        "k1_i1024_w4": (1024, 1, 4),
        "k1_i512_w4": (512, 1, 4),
        "k1_i512_w2": (512, 1, 2),
    },
}


def main(argv=None) -> int:
    import torch

    import benchmarks.reduce_bench as bench
    reduce_module = importlib.import_module("stridelint.reference.reduce")  # the module, not the function

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", choices=sorted(CASE_SETS), default="short")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    timer = bench.Timer("cuda", quick=False)
    copy = bench.copy_bandwidth(torch, "cuda", timer, quick=False)
    print(f"copy bandwidth {copy / 1e9:.0f} GB/s")
    default_tile = reduce_module._tile_shape
    rows = []
    for shape, dim, dtype_name, mask_kind, mask_dtype in CASE_SETS[args.cases]:
        x, mask, scale = bench.make_inputs(torch, shape, getattr(torch, dtype_name), mask_kind, "cuda")
        if mask is not None:
            mask = mask.to(getattr(torch, mask_dtype))
        expected = bench.eager_reduce(x, dim, mask, scale).float()
        tolerance = 2e-2 * expected.abs().max().item() + 1e-2
        line = [f"{'x'.join(map(str, shape))} dim={dim} {dtype_name} {mask_kind} {mask_dtype}"]
        for name, tile in VARIANT_SETS[args.cases].items():
            def chosen(size_o, size_i, size_k, reduced_is_fast, tile=tile):
                if tile is None or reduced_is_fast:
                    return default_tile(size_o, size_i, size_k, reduced_is_fast)
                return tile
            reduce_module._tile_shape = chosen
            out = reduce_module.reduce(x, dim, mask, scale)
            ok = (out.float() - expected).abs().max().item() <= tolerance
            seconds = timer(lambda: reduce_module.reduce(x, dim, mask, scale, out=out))
            fraction = bench.bytes_to_move(x, mask, scale, out) / seconds / copy
            rows.append({"shape": shape, "dim": dim, "dtype": dtype_name, "mask": mask_kind,
                         "mask_dtype": mask_dtype,
                         "variant": name, "us": seconds * 1e6, "of_copy": fraction, "ok": ok})
            line.append(f"{name} {seconds * 1e6:.0f}us {fraction:.0%}{'' if ok else ' WRONG'}")
        reduce_module._tile_shape = default_tile
        print(" | ".join(line), flush=True)
        del x, mask, scale, expected
        torch.cuda.empty_cache()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
