"""Sweep the reference reduce kernel's layout choices on the cases where they matter.

Each variant overrides some of the layout constants of stridelint/reference/reduce.py (tile
shapes, warps, when to split the reduced dim across programs, mask prefetch); ``default`` is
the shipped choice and ``before`` approximates the layout of the kernel before this work (one
row per program for row tiles, 128 x 128 column tiles for long reduced dims, no split, no mask
prefetch, no unrolling). Times are medians of reduce_bench's timer (do_bench's protocol, L2
emptied before each call as --flush says); "of copy" is bytes to move
(benchmarks/reduce_bench.py) over copy bandwidth. The kernel's autotune is switched off here:
each variant times the heuristic plan its constants give (the autotune's own candidates are
listed in reduce.py's *_CANDIDATES).

    python benchmarks/tile_sweep.py [--cases rows columns short] [--json out.json]   # needs CUDA
    python benchmarks/tile_sweep.py --cases misses --rounds 3 --host --graph   # judge the noise too
    python benchmarks/tile_sweep.py --cases s28 --rounds 2 --best-overrides best.txt
    python benchmarks/reduce_bench.py $(cat best.txt) ...   # the full benchmark with the best variant

--rounds N times every variant N times, interleaved (variant order, then again), and reports
the median and the spread; --host adds the host (Python) time of one call, which the device
timing hides only while it is shorter than the device's work; --graph adds the device time of
one call replayed from a CUDA graph (no host work between launches), L2 flushed as before.
A variant whose plan and kernel options equal an earlier variant's is not timed again ("= that one").
--best-overrides writes the ``reduce_bench.py --set`` arguments of the variant that is fastest
over the whole set (``best_variant``), or nothing where no variant pays, so that one device call
can sweep and then run the full benchmark on the sweep's choice. A variant that changes a tile
that none of the set's cases uses is never picked (``sweep_coverage.py``): its cases cannot judge it.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import itertools
import json
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import benchmarks.reduce_bench as bench  # found through the path above (it imports no torch)
import benchmarks.sweep_coverage as coverage

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
    # Rows that missed a target on 2026-12-04 (compile faster, or under 85% of copy).
    "misses": [
        ((8192, 4, 8192), 2, "float16", "bcast_n"),
        ((4, 8192, 8192), 2, "float16", "bcast_n"),
        ((8192, 4, 8192), 2, "bfloat16", "bcast_m"),
        ((4, 8192, 8192), 2, "float16", "bcast_m"),
        ((8192, 4, 8192), 1, "float16", "bcast_m"),
        ((65536, 4, 8192), 1, "float16", "bcast_m"),
        ((4, 8192, 8192), 0, "bfloat16", "bcast_m"),
        ((4, 8192, 8192), 0, "bfloat16", "bcast_n"),
        ((8192, 4, 8192), 0, "bfloat16", "bcast_m"),
        ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
        ((8192, 4, 8192), 0, "float16", "none"),
        ((4, 8192, 8192), 1, "float16", "bcast_m"),
        ((4, 8192, 8192), 1, "float16", "bcast_n"),
        ((4, 8192, 8192), 1, "bfloat16", "dense"),
    ],
}
EVICT = {"X_EVICTION": "evict_first", "OPERAND_EVICTION": "evict_last"}
# Second pass over the misses, one set per layout class (2026-12-04, after the first sweep).
CASE_SETS.update({
    "reuse": [  # k contiguous, mask (B, 1, N) repeated along M: row tiles sharing mask rows
        ((8192, 4, 8192), 2, "bfloat16", "bcast_m"),
        ((8192, 4, 8192), 2, "float16", "bcast_m"),
        ((4, 8192, 8192), 2, "float16", "bcast_m"),
        ((65536, 4, 8192), 2, "bfloat16", "bcast_m"),
    ],
    "rowskip": [  # k contiguous, mask (B, M, 1): x read only where kept
        ((8192, 4, 8192), 2, "float16", "bcast_n"),
        ((4, 8192, 8192), 2, "bfloat16", "bcast_n"),
    ],
    "shortbm": [  # short k not contiguous, mask constant along k
        ((8192, 4, 8192), 1, "float16", "bcast_m"),
        ((65536, 4, 8192), 1, "bfloat16", "bcast_m"),
    ],
    "long": [  # long k not contiguous, split across programs
        ((8192, 4, 8192), 0, "float16", "none"),
        ((8192, 4, 8192), 0, "bfloat16", "bcast_m"),
        ((8192, 4, 8192), 0, "float16", "bcast_n"),
        ((4, 8192, 8192), 1, "float16", "bcast_m"),
        ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
        ((4, 8192, 8192), 1, "bfloat16", "dense"),
        ((4, 8192, 8192), 0, "bfloat16", "bcast_n"),
    ],
})
# Third pass: the best of the second around its neighbours, the constant-mask hoist, dense masks.
CASE_SETS.update({
    "reuse2": [*CASE_SETS["reuse"], ((65536, 4, 8192), 2, "float16", "bcast_m")],
    "rowskip2": [
        *CASE_SETS["rowskip"],
        ((65536, 4, 8192), 2, "float16", "bcast_n"),
        ((8192, 4, 8192), 2, "float16", "none"),
        ((8192, 4, 8192), 2, "bfloat16", "dense"),
    ],
    "hoist": [
        ((8192, 4, 8192), 1, "float16", "bcast_m"),
        ((65536, 4, 8192), 1, "bfloat16", "bcast_m"),
        ((4, 8192, 8192), 1, "float16", "bcast_m"),
    ],
    "dense": [
        ((4, 8192, 8192), 1, "bfloat16", "dense"),
        ((4, 8192, 8192), 1, "float16", "dense"),
        ((8192, 4, 8192), 0, "float16", "dense"),
        ((8192, 4, 8192), 0, "bfloat16", "dense"),
        ((65536, 4, 8192), 0, "bfloat16", "dense"),
    ],
})
EVICT_X = {"X_EVICTION": "evict_first"}
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
    "misses": {
        "default": {},
        "evict": EVICT,
        "evict_x": {"X_EVICTION": "evict_first"},
        "stages1": {"NUM_STAGES": 1},
        "evict_row_u4": {**EVICT, "ROW_UNROLL": 4},
        "evict_row_2x2048_w8": {**EVICT, "ROW_ROWS": 2, "ROW_TILE": 4096, "ROW_WARPS": 8},
        "evict_reuse_u2": {**EVICT, "REUSE_UNROLL": 2},
        "evict_short_u4": {**EVICT, "ONE_ROW_UNROLL": 4},
        "evict_split6": {**EVICT, "SPLIT_TARGET_PROGRAMS_PER_SM": 6},
    },
}
VARIANT_SETS.update({
    "reuse": {
        "default": {},
        "row_1x2048_w4_u2": {"REUSE_ROWS": 1, "REUSE_TILE": 2048, "REUSE_WARPS": 4, "REUSE_UNROLL": 2},
        "row_1x2048_w4_u4": {"REUSE_ROWS": 1, "REUSE_TILE": 2048, "REUSE_WARPS": 4, "REUSE_UNROLL": 4},
        "row_1x4096_w8_u2": {"REUSE_ROWS": 1, "REUSE_TILE": 4096, "REUSE_WARPS": 8, "REUSE_UNROLL": 2},
        "reuse_2x2048_w4_u2": {"REUSE_ROWS": 2, "REUSE_TILE": 4096, "REUSE_WARPS": 4, "REUSE_UNROLL": 2},
        "reuse_4x1024_w4_u2": {"REUSE_TILE": 4096, "REUSE_WARPS": 4, "REUSE_UNROLL": 2},
        "reuse_4x2048_w8_u2": {"REUSE_UNROLL": 2},
    },
    "rowskip": {
        "default": {},
        "noskip": {"SKIP_DROPPED": False},
        "noskip_evict_x": {"SKIP_DROPPED": False, **EVICT_X},
        "u4": {"ROW_UNROLL": 4},
        "u4_evict_x": {"ROW_UNROLL": 4, **EVICT_X},
        "1x4096_w8_u2": {"ROW_TILE": 4096, "ROW_WARPS": 8},
        "1x1024_w4_u4": {"ROW_TILE": 1024, "ROW_UNROLL": 4},
    },
    "shortbm": {
        "default": {},
        "c2048_w8": {"ONE_ROW_COLUMNS": 2048, "ONE_ROW_WARPS": 8},
        "c2048_w4": {"ONE_ROW_COLUMNS": 2048},
        "c512_w4": {"ONE_ROW_COLUMNS": 512},
        "c1024_w2": {"ONE_ROW_WARPS": 2},
        "c1024_w8": {"ONE_ROW_WARPS": 8},
        "evict_x": EVICT_X,
        "operand_last": {"OPERAND_EVICTION": "evict_last"},
    },
    "long": {
        "default": {},
        "evict_x": EVICT_X,
        "evict_x_u8": {**EVICT_X, "LONG_UNROLL": 8},
        "evict_x_c1024_w4_u8": {**EVICT_X, "LONG_COLUMNS": 1024, "LONG_WARPS": 4, "LONG_UNROLL": 8},
        "evict_x_split12": {**EVICT_X, "SPLIT_TARGET_PROGRAMS_PER_SM": 12},
        "evict_x_split16": {**EVICT_X, "SPLIT_TARGET_PROGRAMS_PER_SM": 16, "SPLIT_MIN_PROGRAMS_PER_SM": 8},
        "evict_x_noskip": {**EVICT_X, "SKIP_DROPPED": False},
    },
})
REUSE_4X1024 = {"REUSE_TILE": 4096, "REUSE_WARPS": 4, "REUSE_UNROLL": 2}
VARIANT_SETS.update({
    "reuse2": {
        "default": {},
        "4x1024_w4_u2": REUSE_4X1024,
        "4x1024_w4_u4": {**REUSE_4X1024, "REUSE_UNROLL": 4},
        "4x512_w4_u4": {"REUSE_TILE": 2048, "REUSE_WARPS": 4, "REUSE_UNROLL": 4},
        "4x512_w2_u4": {"REUSE_TILE": 2048, "REUSE_WARPS": 2, "REUSE_UNROLL": 4},
        "8x1024_w8_u2": {"REUSE_ROWS": 8, "REUSE_TILE": 8192, "REUSE_WARPS": 8, "REUSE_UNROLL": 2},
        "4x1024_w4_u2_evict_x": {**REUSE_4X1024, **EVICT_X},
        "4x1024_w4_u2_operand_last": {**REUSE_4X1024, "OPERAND_EVICTION": "evict_last"},
    },
    "rowskip2": {
        "default": {},
        "1x1024_w4_u4": {"ROW_TILE": 1024, "ROW_UNROLL": 4},
        "1x1024_w2_u4": {"ROW_TILE": 1024, "ROW_WARPS": 2, "ROW_UNROLL": 4},
        "1x1024_w4_u8": {"ROW_TILE": 1024, "ROW_UNROLL": 8},
        "1x512_w2_u8": {"ROW_TILE": 512, "ROW_WARPS": 2, "ROW_UNROLL": 8},
        "1x2048_w8_u4": {"ROW_WARPS": 8, "ROW_UNROLL": 4},
        "1x1024_w4_u4_evict_x": {"ROW_TILE": 1024, "ROW_UNROLL": 4, **EVICT_X},
    },
    "hoist": {
        "default": {},
        "prefetch": {"HOIST_CONSTANT_MASK": False},
        "per_tile": {"HOIST_CONSTANT_MASK": False, "PREFETCH_COLUMNS": False},
        "per_tile_evict_x": {"HOIST_CONSTANT_MASK": False, "PREFETCH_COLUMNS": False, **EVICT_X},
    },
    "dense": {
        "default": {},
        "evict_x": EVICT_X,
    },
})
# Session 5: the split finished in-kernel and int32 offsets, on every row that missed a target.
CASE_SETS["s5"] = [
    ((8192, 4, 8192), 0, "float16", "none"),
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((4, 8192, 8192), 1, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_m"),
    ((4, 8192, 8192), 1, "float16", "none"),
    ((8192, 4, 8192), 1, "float16", "bcast_m"),
    ((65536, 4, 8192), 1, "float16", "bcast_m"),
    ((8192, 4, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "none"),
]
CASE_SETS["s5"] += [
    ((4, 8192, 8192), 1, "bfloat16", "dense"),
    ((65536, 4, 8192), 0, "float16", "bcast_n"),
    ((65536, 4, 8192), 2, "float16", "bcast_m"),
]
SESSION4 = {"FINISH_SPLIT_IN_KERNEL": False, "NARROW_INDEX": False, "MASK_AFTER_SUM": False}
VARIANT_SETS["s5"] = {
    "default": {},
    "select_all": {"MASK_AFTER_SUM": False},
    "two_launches": {"FINISH_SPLIT_IN_KERNEL": False},
    "wide": {"NARROW_INDEX": False},
    "session4": SESSION4,
    "long_u8": {"LONG_UNROLL": 8},
    "split6": {"SPLIT_TARGET_PROGRAMS_PER_SM": 6},
    "split12": {"SPLIT_TARGET_PROGRAMS_PER_SM": 12},
    "short_u2": {"ONE_ROW_UNROLL": 2},
    "short_c2048_w8": {"ONE_ROW_COLUMNS": 2048, "ONE_ROW_WARPS": 8},
    "reuse_u4": {"REUSE_UNROLL": 4},
    "row_u8": {"ROW_UNROLL": 8},
}
# Third session-5 pass: the split target, and long column tiles of several reduced rows (variants
# kept_r4_u1, kept_r4_u2, kept_r2_u2, kept_r8_u1, rows4_u1, rows2_u2 of tile_sweep_s5c.txt:
# 5-60% slower everywhere; their constants were removed from reduce.py).
CASE_SETS["s5c"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((65536, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "none"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "bfloat16", "dense"),
    ((4, 8192, 8192), 1, "float16", "none"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_m"),
    ((4, 8192, 8192), 1, "bfloat16", "dense"),
    ((65536, 4, 8192), 0, "float16", "none"),
    ((65536, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_m"),
]
VARIANT_SETS["s5c"] = {
    "default": {},
    "split8": {"SPLIT_TARGET_PROGRAMS_PER_SM": 8},
    "split5": {"SPLIT_TARGET_PROGRAMS_PER_SM": 5},
    "wide": {"NARROW_INDEX": False},
}
# Fourth session-5 pass: a step's mask values loaded a step ahead where x's loads wait for them
# (tile_sweep_s5d.txt: the default then; "tile_ahead" the one-tile-ahead load that is the default
# now, within 1%; the step-ahead load was removed from reduce.py) and the unroll of those tiles.
CASE_SETS["s5d"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((65536, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 1, "float16", "bcast_n"),
    ((4, 8192, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
]
VARIANT_SETS["s5d"] = {
    "default": {},
    "long_u8": {"LONG_UNROLL": 8},
    "long_u2": {"LONG_UNROLL": 2},
    "short_u2": {"ONE_ROW_UNROLL": 2},
    "wide": {"NARROW_INDEX": False},
}
# Session 6 (benchmarks/results/h200-2026-12-04-s6-kernel/tile_sweep_s6*.txt). tile_sweep_s6a ran
# two ideas since removed from reduce.py: the partials of a split added 4-16 at a time, all loads in
# flight (split rows 2-25% slower in one launch, equal in two), and a tile whose mask (one value
# for the tile) drops it skipping its loop, x then read without a mask predicate (within 1%).
# These sets are the second pass (tile_sweep_s6b).
CASE_SETS["s6split"] = [
    ((8192, 4, 8192), 0, "float16", "none"),
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((4, 8192, 8192), 1, "bfloat16", "none"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_m"),
    ((4, 8192, 8192), 1, "bfloat16", "dense"),
    ((65536, 4, 8192), 0, "float16", "none"),
    ((65536, 4, 8192), 0, "float16", "bcast_n"),
    ((65536, 4, 8192), 0, "float16", "bcast_m"),
    ((65536, 4, 8192), 0, "bfloat16", "bcast_m"),
]
TWO_D_64 = {"ONE_ROW_MAX_K": 0, "COLUMN_BLOCK_I": 64, "COLUMN_TILE": 4096, "COLUMN_WARPS": 16}
VARIANT_SETS["s6split"] = {
    "default": {},
    "split5": {"SPLIT_TARGET_PROGRAMS_PER_SM": 5},
    "split8": {"SPLIT_TARGET_PROGRAMS_PER_SM": 8},
    "two_launches": {"FINISH_SPLIT_IN_KERNEL": False},
    "two_d_64x64_w16": {**TWO_D_64, **NO_SPLIT},
    "two_d_64x64_w16_split": TWO_D_64,
    "two_d_64x64_w8": {**TWO_D_64, "COLUMN_WARPS": 8, **NO_SPLIT},
    "two_d_64x128_w16": {**TWO_D_64, "COLUMN_TILE": 8192, **NO_SPLIT},
}
CASE_SETS["s6rows"] = [
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 2, "float16", "bcast_n"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_n"),
    ((65536, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "none"),
    ((8192, 4, 8192), 2, "bfloat16", "dense"),
    ((8192, 4, 8192), 2, "float16", "bcast_m"),
    ((8192, 4, 8192), 2, "bfloat16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_m"),
    ((65536, 4, 8192), 2, "float16", "bcast_m"),
    ((65536, 4, 8192), 2, "bfloat16", "bcast_m"),
]
VARIANT_SETS["s6rows"] = {
    "default": {},
    "wide": {"NARROW_INDEX": False},
    "row_1x8192_w16_u1": {"ROW_TILE": 8192, "ROW_WARPS": 16, "ROW_UNROLL": 1},
    "row_1x2048_w16_u1": {"ROW_TILE": 2048, "ROW_WARPS": 16, "ROW_UNROLL": 1},
    "row_1x4096_w8_u1": {"ROW_TILE": 4096, "ROW_WARPS": 8, "ROW_UNROLL": 1},
    "reuse_2x8192_w16_u1": {"REUSE_ROWS": 2, "REUSE_TILE": 16384, "REUSE_WARPS": 16, "REUSE_UNROLL": 1},
    "reuse_4x4096_w16_u1": {"REUSE_TILE": 16384, "REUSE_WARPS": 16, "REUSE_UNROLL": 1},
    "reuse_4x2048_w8_u1": {"REUSE_TILE": 8192, "REUSE_WARPS": 8, "REUSE_UNROLL": 1},
    "reuse_2x4096_w8_u1": {"REUSE_ROWS": 2, "REUSE_TILE": 8192, "REUSE_WARPS": 8, "REUSE_UNROLL": 1},
    "reuse_4x512_w2_u4": {"REUSE_TILE": 2048, "REUSE_WARPS": 2, "REUSE_UNROLL": 4},
}
# Third pass (tile_sweep_s6c): 2-D column tiles like Inductor's (64 columns x 64 reduced rows, 16 warps, no
# split) around that shape; the index width and eviction hints of row tiles read only where kept;
# row tiles instead of shared-mask ones on a small mask.
CASE_SETS["s6two"] = [
    ((8192, 4, 8192), 0, "float16", "none"),
    ((8192, 4, 8192), 0, "bfloat16", "none"),
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((4, 8192, 8192), 1, "float16", "none"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_m"),
    ((4, 8192, 8192), 1, "float16", "dense"),
    ((65536, 4, 8192), 0, "float16", "none"),
    ((65536, 4, 8192), 0, "float16", "bcast_n"),
    ((65536, 4, 8192), 0, "bfloat16", "bcast_m"),
]
VARIANT_SETS["s6two"] = {
    "default": {},
    "split8": {"SPLIT_TARGET_PROGRAMS_PER_SM": 8},
    "2d_64x64_w16": {**TWO_D_64, **NO_SPLIT},
    "2d_64x64_w16_u2": {**TWO_D_64, "COLUMN_UNROLL": 2, **NO_SPLIT},
    "2d_64x64_w16_noprefetch": {**TWO_D_64, "PREFETCH_COLUMNS": False, **NO_SPLIT},
    "2d_128x32_w16": {**TWO_D_64, "COLUMN_BLOCK_I": 128, **NO_SPLIT},
    "2d_32x128_w16": {**TWO_D_64, "COLUMN_BLOCK_I": 32, **NO_SPLIT},
    "2d_128x64_w16": {**TWO_D_64, "COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192, **NO_SPLIT},
    "2d_64x32_w8": {**TWO_D_64, "COLUMN_TILE": 2048, "COLUMN_WARPS": 8, **NO_SPLIT},
}
CASE_SETS["s6rows2"] = [
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 2, "float16", "bcast_n"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_m"),
    ((65536, 4, 8192), 2, "float16", "bcast_m"),
]
WIDE = {"NARROW_INDEX": False}
VARIANT_SETS["s6rows2"] = {
    "default": {},
    "wide": WIDE,
    "wide_u8": {**WIDE, "ROW_UNROLL": 8},
    "wide_1x512_w2_u8": {**WIDE, "ROW_TILE": 512, "ROW_WARPS": 2, "ROW_UNROLL": 8},
    "wide_evict": {**WIDE, **EVICT},
    "wide_evict_x": {**WIDE, **EVICT_X},
    "reuse_as_row": {"REUSE_ROWS": 1, "REUSE_TILE": 1024, "REUSE_WARPS": 4, "REUSE_UNROLL": 4},
    "reuse_2x1024_w4_u2": {"REUSE_ROWS": 2, "REUSE_TILE": 2048, "REUSE_UNROLL": 2},
    "reuse_4x512_w2_u4": {"REUSE_TILE": 2048, "REUSE_WARPS": 2, "REUSE_UNROLL": 4},
    "reuse_operand_last": {"OPERAND_EVICTION": "evict_last"},
}
# Fourth pass (tile_sweep_s6d), on the code with 2-D column tiles and int64 offsets for kept rows: the split of
# one-row tiles under masks that vary along both kept columns and k, 2-D tiles for them too,
# and the pipelining depth of 2-D tiles (the recorded run set it for 2-D tiles alone, through a
# constant removed since: 1, 2 or Triton's default ran within 1%; the variants now set NUM_STAGES).
CASE_SETS["s6both"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((8192, 4, 8192), 0, "bfloat16", "dense"),
    ((4, 8192, 8192), 1, "float16", "dense"),
    ((4, 8192, 8192), 1, "bfloat16", "dense"),
    ((65536, 4, 8192), 0, "float16", "bcast_m"),
    ((65536, 4, 8192), 0, "bfloat16", "dense"),
]
TWO_D_ALL = {"ONE_ROW_MAX_K": 0, "SPLIT_MIN_PROGRAMS_PER_SM": 2}
VARIANT_SETS["s6both"] = {
    "default": {},
    "split8": {"SPLIT_TARGET_PROGRAMS_PER_SM": 8},
    "stages1": {"NUM_STAGES": 1},
    "2d": TWO_D_ALL,
    "2d_stages1": {**TWO_D_ALL, "NUM_STAGES": 1},
    "2d_stages2": {**TWO_D_ALL, "NUM_STAGES": 2},
    "2d_128x64_stages1": {**TWO_D_ALL, "NUM_STAGES": 1, "COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192},
}
CASE_SETS["s6new"] = [
    ((8192, 4, 8192), 0, "float16", "none"),
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "none"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_m"),
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_n"),
]
VARIANT_SETS["s6new"] = {
    "default": {},
    "one_row_split": {"TWO_D_MAX_K": 0},
    "stages1": {"NUM_STAGES": 1},
    "stages2": {"NUM_STAGES": 2},
    "stages1_128x64": {"NUM_STAGES": 1, "COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192},
    "narrow": {"KEPT_ROWS_WIDE_INDEX": False},
}
# Fifth pass (tile_sweep_s6e): the rows still missing a target on the code with all of the above.
CASE_SETS["s6last"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_m"),
    ((8192, 4, 8192), 2, "float16", "bcast_m"),
]
VARIANT_SETS["s6last"] = {
    "default": {},
    "evict": EVICT,
    "evict_x": EVICT_X,
    "operand_last": {"OPERAND_EVICTION": "evict_last"},
    "2d_w32": {"COLUMN_WARPS": 32},
    "2d_64x128_w32": {"COLUMN_TILE": 8192, "COLUMN_WARPS": 32},
    "long_4096_w16_u2": {"LONG_COLUMNS": 4096, "LONG_WARPS": 16, "LONG_UNROLL": 2},
    "long_2048_w8_u2": {"LONG_UNROLL": 2},
    "reuse_4x1024_w8_u2": {"REUSE_WARPS": 8},
    "reuse_8x512_w4_u2": {"REUSE_ROWS": 8},
    "reuse_4x1024_w4_u1": {"REUSE_UNROLL": 1},
}
# Session 7 (tile_sweep_s7): the rows under 85% (2-D tiles under a mask over N) and those where
# torch.compile won in session 6, with two controls (no mask): a deeper pipeline, two 2-D tiles a
# step, Inductor-like row tiles (one row of 2048, 8 warps, no unrolling) for rows sharing a mask
# row, and a deeper split of one-row tiles.
CASE_SETS["s7"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_m"),
    ((65536, 4, 8192), 2, "float16", "bcast_m"),
    ((65536, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "none"),
    ((8192, 4, 8192), 2, "float16", "none"),
]
VARIANT_SETS["s7"] = {
    "default": {},
    "stages4": {"NUM_STAGES": 4},
    "2d_u2": {"COLUMN_UNROLL": 2},
    "reuse_1x2048_w8_u1": {"REUSE_ROWS": 1, "REUSE_TILE": 2048, "REUSE_WARPS": 8, "REUSE_UNROLL": 1},
    "reuse_2x2048_w8_u1": {"REUSE_ROWS": 2, "REUSE_TILE": 4096, "REUSE_WARPS": 8, "REUSE_UNROLL": 1},
    "split12": {"SPLIT_TARGET_PROGRAMS_PER_SM": 12},
}
# Session 7, on the code that takes two 2-D tiles a step where x is read only where kept
# (COLUMN_KEPT_UNROLL = 2): that choice against one tile a step, five rounds.
CASE_SETS["s7kept"] = [*CASE_SETS["s7"][:4], ((8192, 4, 8192), 0, "float16", "none")]
VARIANT_SETS["s7kept"] = {"default": {}, "kept_u1": {"COLUMN_KEPT_UNROLL": 1}}
# Session 7: Inductor's candidate tiles for 8192x4x8192 dim 0 under a mask over M (its compiled
# configs: 64x4 w8, 64x64 w16, 8x256 w16, 8x512 w16, 16x32 w4 columns x reduced rows) on our 2-D tile.
CASE_SETS["s7inductor"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((65536, 4, 8192), 0, "float16", "bcast_m"),
]
VARIANT_SETS["s7inductor"] = {
    "default": {},
    "2d_64x4_w8": {**TWO_D_ALL, "COLUMN_TILE": 256, "COLUMN_WARPS": 8},
    "2d_64x64_w16": TWO_D_ALL,
    "2d_8x256_w16": {**TWO_D_ALL, "COLUMN_BLOCK_I": 8, "COLUMN_TILE": 2048},
    "2d_8x512_w16": {**TWO_D_ALL, "COLUMN_BLOCK_I": 8},
    "2d_16x32_w4": {**TWO_D_ALL, "COLUMN_BLOCK_I": 16, "COLUMN_TILE": 512, "COLUMN_WARPS": 4},
    "2d_64x8_w8": {**TWO_D_ALL, "COLUMN_TILE": 512, "COLUMN_WARPS": 8},
    "2d_128x4_w8": {**TWO_D_ALL, "COLUMN_BLOCK_I": 128, "COLUMN_TILE": 512, "COLUMN_WARPS": 8},
}
# Session 7: Inductor's pick there is our 64 x 64 tile, 16 warps, one stage (its .best_config),
# yet 155 µs against our 207: it loads x evict_first and the mask evict_last. The (8192, 1, 8192)
# mask is 64 MiB, over the L2, and each of the 4 programs along M reads it; kept in L2 it is
# fetched once. Those hints on our 2-D tile, and on row tiles under the same mask (reduce over N).
CASE_SETS["s7evict"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((4, 8192, 8192), 1, "float16", "dense"),
    ((65536, 4, 8192), 0, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((65536, 4, 8192), 2, "float16", "bcast_m"),
]
VARIANT_SETS["s7evict"] = {
    "default": {},
    "evict": EVICT,
    "mask_last": {"OPERAND_EVICTION": "evict_last"},
    "2d_evict": {**TWO_D_ALL, **EVICT},
    "2d_mask_last": {**TWO_D_ALL, "OPERAND_EVICTION": "evict_last"},
    "2d_evict_stages1": {**TWO_D_ALL, **EVICT, "NUM_STAGES": 1},
    "2d_evict_128x64": {**TWO_D_ALL, **EVICT, "COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192},
    "reuse_1x8192_w16_evict": {**EVICT, "REUSE_ROWS": 1, "REUSE_TILE": 8192, "REUSE_WARPS": 16, "REUSE_UNROLL": 1},
}
# Session 7: the sizes as compile-time constants, as Inductor compiles them: the loop's trip count
# known, on the 2-D tile and on the shipped plans. Recorded (tile_sweep_s7const) with an early
# CONSTANT_SIZES that compiled in the size of i for every launch and k for every unsplit one;
# it now applies to unsplit 2-D tiles of large inputs only, and is on by default.
CASE_SETS["s7const"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "none"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((8192, 4, 8192), 2, "float16", "none"),
]
VARIANT_SETS["s7const"] = {
    "default": {},
    "const": {"CONSTANT_SIZES": True},
    "2d": TWO_D_ALL,
    "2d_const": {**TWO_D_ALL, "CONSTANT_SIZES": True},
    "2d_const_stages1": {**TWO_D_ALL, "CONSTANT_SIZES": True, "NUM_STAGES": 1},
}
# Session 7, final code: sizes compiled in for unsplit 2-D tiles (and 2-D tiles under masks that
# vary along both the columns and k) against the code without (CONSTANT_SIZES = False).
CASE_SETS["s7final"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((8192, 4, 8192), 0, "bfloat16", "dense"),
    ((4, 8192, 8192), 1, "float16", "dense"),
    ((4, 8192, 8192), 1, "bfloat16", "dense"),
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "none"),
]
VARIANT_SETS["s7final"] = {"default": {}, "no_constant_sizes": {"CONSTANT_SIZES": False}}
# Session 8 (benchmarks/results/h200-2026-12-04-s8-kernel/): the rows still missing a target after
# session 7. Row tiles (reduce over N) with their sizes compiled in, at 65536x4x8192 too, and with
# the bounds checks left out where the tiles cover the sizes exactly (EVEN_BOUNDS, within 1%
# everywhere in sweep/tile_sweep_s8.txt and removed from reduce.py since: its variants now equal
# the ones without it); Inductor-like row tiles with sizes compiled in; two controls (no mask, dense).
CASE_SETS["s8rows"] = [
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "bcast_m"),
    ((8192, 4, 8192), 2, "bfloat16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_n"),
    ((65536, 4, 8192), 2, "float16", "bcast_m"),
    ((65536, 4, 8192), 2, "bfloat16", "bcast_m"),
    ((65536, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "none"),
    ((8192, 4, 8192), 2, "bfloat16", "dense"),
    ((65536, 4, 8192), 2, "float16", "dense"),
]
ROW_CONST = {"CONSTANT_ROW_SIZES": True}
ROW_EVEN = ROW_CONST  # EVEN_BOUNDS is gone from reduce.py: these variants equal "const"
VARIANT_SETS["s8rows"] = {
    "default": {},
    "const": ROW_CONST,
    "const_even": ROW_EVEN,
    "const_even_narrow": {**ROW_EVEN, "KEPT_ROWS_WIDE_INDEX": False},
    "const_even_reuse_4x2048_w8_u1": {**ROW_EVEN, "REUSE_TILE": 8192, "REUSE_WARPS": 8, "REUSE_UNROLL": 1},
    "const_even_reuse_2x4096_w8_u1": {**ROW_EVEN, "REUSE_ROWS": 2, "REUSE_TILE": 8192, "REUSE_WARPS": 8,
                                      "REUSE_UNROLL": 1},
    "const_even_reuse_1x8192_w16_u1": {**ROW_EVEN, "REUSE_ROWS": 1, "REUSE_TILE": 8192, "REUSE_WARPS": 16,
                                       "REUSE_UNROLL": 1},
    "const_even_row_1x8192_w16_u1": {**ROW_EVEN, "ROW_TILE": 8192, "ROW_WARPS": 16, "ROW_UNROLL": 1},
    "const_even_row_1x2048_w8_u2": {**ROW_EVEN, "ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 2},
}
# Session 8: 2-D column tiles without bounds checks, more tiles a step or other shapes where x is
# read only where kept (the rows under 85%), and 2-D tiles for k = 65536 (65536x4x8192 summed over B,
# where max-autotune won under a mask over M).
CASE_SETS["s8cols"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "none"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((4, 8192, 8192), 1, "bfloat16", "dense"),
    ((65536, 4, 8192), 0, "float16", "bcast_m"),
    ((65536, 4, 8192), 0, "bfloat16", "bcast_m"),
    ((65536, 4, 8192), 0, "float16", "none"),
    ((65536, 4, 8192), 0, "float16", "bcast_n"),
    ((65536, 4, 8192), 0, "float16", "dense"),
]
EVEN: dict = {}  # EVEN_BOUNDS is gone from reduce.py: "even" variants equal the ones without it
VARIANT_SETS["s8cols"] = {
    "default": {},
    "even": EVEN,
    "even_kept_u4": {**EVEN, "COLUMN_KEPT_UNROLL": 4},
    "even_128x32": {**EVEN, "COLUMN_BLOCK_I": 128},
    "even_64x128": {**EVEN, "COLUMN_TILE": 8192},
    "even_64x128_kept_u1": {**EVEN, "COLUMN_TILE": 8192, "COLUMN_KEPT_UNROLL": 1},
    "2d_k65536": {"TWO_D_MAX_K": 65536},
    "2d_k65536_even": {**EVEN, "TWO_D_MAX_K": 65536},
    "2d_k65536_even_128x64": {**EVEN, "TWO_D_MAX_K": 65536, "COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192,
                              "TWO_D_MIN_PROGRAMS_PER_SM": 1},
}
# Session 8, final code: row tiles with their sizes compiled in (CONSTANT_ROW_SIZES) and the
# small-mask row tiles (SMALL_MASK_BYTES) against the code without each, five rounds.
CASE_SETS["s8final"] = [
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "bfloat16", "bcast_m"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_m"),
    ((65536, 4, 8192), 2, "float16", "bcast_m"),
    ((8192, 4, 8192), 2, "float16", "none"),
]
VARIANT_SETS["s8final"] = {
    "default": {},
    "no_row_sizes": {"CONSTANT_ROW_SIZES": False},
    "no_small_mask_tile": {"SMALL_MASK_BYTES": -1},
}
# Session 8, prepared after the final run and not run yet (for the next pass): Inductor-like row
# tiles with the sizes compiled in where compile still wins (a small mask over M at 4x8192x8192, a
# mask over N at 8192x4x8192), as small-mask tiles and as row tiles read only where kept.
CASE_SETS["s8next"] = [
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((4, 8192, 8192), 2, "bfloat16", "bcast_m"),
    ((8192, 4, 8192), 2, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
]
VARIANT_SETS["s8next"] = {
    "default": {},
    "small_1x2048_w8_u1": {"SMALL_MASK_ROWS": 1, "SMALL_MASK_TILE": 2048},
    "small_1x4096_w8_u1": {"SMALL_MASK_ROWS": 1, "SMALL_MASK_TILE": 4096},
    "small_1x2048_w4_u2": {"SMALL_MASK_ROWS": 1, "SMALL_MASK_TILE": 2048, "SMALL_MASK_WARPS": 4,
                           "SMALL_MASK_UNROLL": 2},
    "small_2x4096_w16_u1": {"SMALL_MASK_WARPS": 16},
    "small_4x2048_w8_u1": {"SMALL_MASK_ROWS": 4},
    "row_1x2048_w8_u1": {"ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 1},
    "row_1x4096_w8_u1": {"ROW_TILE": 4096, "ROW_WARPS": 8, "ROW_UNROLL": 1},
    "row_1x1024_w4_u2": {"ROW_UNROLL": 2},
    "row_1x1024_w4_u8": {"ROW_UNROLL": 8},
}
# Session 8, second pass, run in session 10 (benchmarks/results/h200-2026-12-05-s10-sweep/sweep.txt): split
# launches with compiled-in sizes lost 15-40% at 65536x4x8192 summed over B, row tiles that skip
# the loop where a mask over N drops the tile gained under 1%; both removed from the kernel. The 2-D
# tiles read only where kept (under 85%) at other depths and shapes:
CASE_SETS["s8kept2d"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
]
VARIANT_SETS["s8kept2d"] = {
    "default": {},
    "stages_2": {"NUM_STAGES": 2},
    "stages_4": {"NUM_STAGES": 4},
    "kept_u1": {"COLUMN_KEPT_UNROLL": 1},
    "32x128": {"COLUMN_BLOCK_I": 32},
    "64x32": {"COLUMN_TILE": 2048},
    "64x32_w8": {"COLUMN_TILE": 2048, "COLUMN_WARPS": 8},
    "64x64_w8": {"COLUMN_WARPS": 8},
}
# Session 10, after ncu (h200-2026-12-05-s10-final/ncu.txt): the 2-D tiles read only where kept
# read 3/4 of the bytes at 82% of DRAM peak (91% unmasked): more loads in flight per program; and
# the split one-row tiles at 65536x4x8192 summed over B under a mask over M, where max-autotune
# leads by 3%, with other splits, widths and depths.
CASE_SETS["s10kept"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
]
VARIANT_SETS["s10kept"] = {
    "default": {},
    "kept_u3": {"COLUMN_KEPT_UNROLL": 3},
    "kept_u4": {"COLUMN_KEPT_UNROLL": 4},
    "128x64_u2": {"COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192},
    "128x64_u1": {"COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192, "COLUMN_KEPT_UNROLL": 1},
    "32x64_u4": {"COLUMN_BLOCK_I": 32, "COLUMN_TILE": 2048, "COLUMN_KEPT_UNROLL": 4},
    "64x64_w8_u4": {"COLUMN_WARPS": 8, "COLUMN_KEPT_UNROLL": 4},
    "evict_first": {"X_EVICTION": "evict_first"},
}
CASE_SETS["s10long"] = [
    ((65536, 4, 8192), 0, "float16", "bcast_m"),
    ((65536, 4, 8192), 0, "bfloat16", "bcast_m"),
]
VARIANT_SETS["s10long"] = {
    "default": {},
    "split_per_sm_4": {"SPLIT_TARGET_PROGRAMS_PER_SM": 4},
    "split_per_sm_12": {"SPLIT_TARGET_PROGRAMS_PER_SM": 12},
    "split_per_sm_16": {"SPLIT_TARGET_PROGRAMS_PER_SM": 16},
    "long_u2": {"LONG_UNROLL": 2},
    "long_u8": {"LONG_UNROLL": 8},
    "long_1024_w4_u4": {"LONG_COLUMNS": 1024, "LONG_WARPS": 4},
    "long_4096_w16_u2": {"LONG_COLUMNS": 4096, "LONG_WARPS": 16, "LONG_UNROLL": 2},
    "evict_first": {"X_EVICTION": "evict_first"},
}
# Session 10: x's eviction hint in split one-row column tiles (SPLIT_X_EVICTION) on every mask.
CASE_SETS["s10evict"] = [((65536, 4, 8192), 0, dtype, mask) for dtype in ("float16", "bfloat16")
                         for mask in ("none", "dense", "bcast_n", "bcast_m")]
VARIANT_SETS["s10evict"] = {"default": {}, "no_hint": {"SPLIT_X_EVICTION": ""}}
# Session 14: the 2-D tiles read only where kept (82-85% of copy) hold about four programs a
# multiprocessor; split k so that programs come in many rounds instead of one and a tail, or put
# more warps on a tile; and the row tile read only where kept at 8192x4x8192 summed over N (bf16).
CASE_SETS["s14"] = [
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "bfloat16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "none"),
]
VARIANT_SETS["s14"] = {
    "default": {},
    "split_8": {"TWO_D_MIN_PROGRAMS_PER_SM": 8},
    "split_16": {"TWO_D_MIN_PROGRAMS_PER_SM": 16, "SPLIT_TARGET_PROGRAMS_PER_SM": 16},
    "split_24": {"TWO_D_MIN_PROGRAMS_PER_SM": 24, "SPLIT_TARGET_PROGRAMS_PER_SM": 24},
    "w32": {"COLUMN_WARPS": 32},
    "128x64_w32": {"COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192, "COLUMN_WARPS": 32},
    "64x128_w32_u1": {"COLUMN_TILE": 8192, "COLUMN_WARPS": 32, "COLUMN_KEPT_UNROLL": 1},
    "split_16_w32": {"TWO_D_MIN_PROGRAMS_PER_SM": 16, "SPLIT_TARGET_PROGRAMS_PER_SM": 16, "COLUMN_WARPS": 32},
}
CASE_SETS["s14rows"] = [
    ((8192, 4, 8192), 2, "bfloat16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
]
VARIANT_SETS["s14rows"] = {
    "default": {},
    "u2": {"ROW_UNROLL": 2},
    "1x2048_w4_u2": {"ROW_TILE": 2048, "ROW_UNROLL": 2},
    "1x512_w2_u8": {"ROW_TILE": 512, "ROW_WARPS": 2, "ROW_UNROLL": 8},
    "narrow_index": {"KEPT_ROWS_WIDE_INDEX": False},
}
# Session 16: on both the H100 and the H200 every s14 variant (more programs, more warps, wider
# tiles) was slower; try the other way on the two rows still at 84-85% on the H200: fewer warps,
# deeper unrolling of the kept-row loop, software pipelining, no column prefetch.
CASE_SETS["s16"] = CASE_SETS["s14"][:2]
VARIANT_SETS["s16"] = {
    "default": {},
    "w8": {"COLUMN_WARPS": 8},
    "u4": {"COLUMN_KEPT_UNROLL": 4},
    "w8_u4": {"COLUMN_WARPS": 8, "COLUMN_KEPT_UNROLL": 4},
    "stages2": {"NUM_STAGES": 2},
    "stages3": {"NUM_STAGES": 3},
    "no_prefetch": {"PREFETCH_COLUMNS": False},
}
# Session 23: on the H100 (session 16) max-autotune led the split one-row tiles at 65536x4x8192
# summed over B under a mask over M by 4-5% (1543 against 1613-1626 µs); the H200 held it. Run on
# an H100 (h100-2026-12-06-s23): keeping the mask in L2 (mask_evict_last) changed nothing; a
# program summing the four values of o that share each mask row (a separate kernel, tried and
# removed) ran 7-9% slower; 4 warps instead of 8 ran 3-4% faster and passed max-autotune, and
# became LONG_WARPS (s23all: the other masks at that shape; "long_w8" is the old default).
CASE_SETS["s23"] = CASE_SETS["s10long"]
VARIANT_SETS["s23"] = {
    **VARIANT_SETS["s10long"],
    "long_w8": {"LONG_WARPS": 8},
    "mask_evict_last": {"OPERAND_EVICTION": "evict_last"},
    "no_x_hint": {"SPLIT_X_EVICTION": ""},
    "stages2": {"NUM_STAGES": 2},
}
CASE_SETS["s23all"] = [((65536, 4, 8192), 0, dtype, mask) for dtype in ("float16", "bfloat16")
                       for mask in ("none", "dense", "bcast_n")]
VARIANT_SETS["s23all"] = {"default": {}, "long_w8": {"LONG_WARPS": 8, "LONG_KEPT_WARPS": 8},
                          "long_w4": {"LONG_WARPS": 4, "LONG_KEPT_WARPS": 4}}
# Session 26: on an H100 (h100-2026-12-07-s26) torch.compile led the row tiles (reduce over N, x's
# contiguous dim) by 2-4% on every masked row at 8192x4x8192 and 65536x4x8192 (255 against 264 µs
# dense at 8192x4x8192), and max-autotune led the 2-D tile at 8192x4x8192 summed over B under a
# mask over M (202 against 209). x loaded evict_first (as Inductor loads it), the mask kept in L2,
# other row tiles, and Triton's software pipelining.
CASE_SETS["s26"] = [
    ((8192, 4, 8192), 2, "float16", "dense"),
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "bcast_m"),
    ((65536, 4, 8192), 2, "float16", "dense"),
    ((65536, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
]
VARIANT_SETS["s26"] = {
    "default": {},
    "x_evict_first": EVICT_X,
    "row_1x2048_w8_u1": {"ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 1},
    "row_1x2048_w8_u2": {"ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 2},
    "row_1x2048_w16_u1": {"ROW_TILE": 2048, "ROW_WARPS": 16, "ROW_UNROLL": 1},
    "row_1x4096_w16_u1": {"ROW_TILE": 4096, "ROW_WARPS": 16, "ROW_UNROLL": 1},
    "row_1x2048_w8_u1_evict": {"ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 1, **EVICT_X},
    "reuse_2x2048_w8_u1": {"REUSE_ROWS": 2, "REUSE_TILE": 4096, "REUSE_WARPS": 8, "REUSE_UNROLL": 1},
    "stages1": {"NUM_STAGES": 1},
    "stages2": {"NUM_STAGES": 2},
    "mask_evict_last": {"OPERAND_EVICTION": "evict_last"},
    "x_first_mask_last": {**EVICT_X, "OPERAND_EVICTION": "evict_last"},
}
# Session 27 (no device; for the next deciding run). On the H100 Inductor led the row tiles without
# a mask too (1337 against 1386 µs at 65536x4x8192), so the tile, not the mask, is the suspect.
# Inductor's config for a reduce over a contiguous dim of 8192 (torch._inductor's reduction
# heuristics): one row of 2048 a step, 16 warps, one pipeline stage, i.e. 4 elements a thread and
# 4 programs a multiprocessor, where ours keeps 10-16 (1 x 1024, 4 warps, 4 a step): fewer rows
# in flight, each read faster. Also max-autotune's pick for the 2-D row, 128 x 64 at 16 warps (the
# H200, session 7), unsplit as Inductor runs it: kernel_ptx_probe.py showed that it needs
# TWO_D_MIN_PROGRAMS_PER_SM 1 (with 2 it splits, or falls back to one-row tiles). Four more 2-D
# rows guard it.
CASE_SETS["s27"] = CASE_SETS["s26"] + [
    ((8192, 4, 8192), 0, "float16", "none"),
    ((8192, 4, 8192), 0, "float16", "dense"),
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
    ((4, 8192, 8192), 1, "float16", "bcast_m"),
]
ROW_W16 = {"ROW_TILE": 2048, "ROW_WARPS": 16, "ROW_UNROLL": 1}
# Tiles of three families that no case shares: row tiles, row tiles sharing a mask row, 2-D tiles.
TILE_FAMILIES = (
    {
        "row_1x2048_w8_u1": {"ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 1},
        "row_1x2048_w8_u2": {"ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 2},
        "row_1x2048_w16_u1": ROW_W16,
        "row_1x2048_w16_u2": {**ROW_W16, "ROW_UNROLL": 2},
        "row_1x4096_w16_u1": {"ROW_TILE": 4096, "ROW_WARPS": 16, "ROW_UNROLL": 1},
        "row_1x1024_w8_u1": {"ROW_WARPS": 8, "ROW_UNROLL": 1},
    },
    {
        "reuse_2x2048_w8_u1": {"REUSE_ROWS": 2, "REUSE_TILE": 4096, "REUSE_WARPS": 8, "REUSE_UNROLL": 1},
        "reuse_4x2048_w16_u1": {"REUSE_ROWS": 4, "REUSE_TILE": 8192, "REUSE_WARPS": 16, "REUSE_UNROLL": 1},
        "reuse_4x1024_w8_u2": {"REUSE_WARPS": 8},
    },
    {
        "2d_128x64_w16": {"COLUMN_BLOCK_I": 128, "COLUMN_TILE": 8192, "TWO_D_MIN_PROGRAMS_PER_SM": 1},
    },
)


def tile_combinations(families) -> dict:
    """Every way to take at most one tile of each family ("a+b" names the tiles taken). Where the
    families' cases do not overlap, a combination runs on each case the kernel of the one tile
    that applies there, which the sweep has timed already (a variant whose plan and kernel
    equal another's is not timed again): --best-overrides can then pick a tile for each family
    at no cost in device time."""
    combinations = {}
    for picks in itertools.product(*([None, *family] for family in families)):
        names = [name for name in picks if name is not None]
        if names:
            combinations["+".join(names)] = {key: value for family, name in zip(families, picks) if name
                                             for key, value in family[name].items()}
    return combinations


VARIANT_SETS["s27"] = {
    # s26's that change more than tiles, less two that no sweep has seen change a time (stages2,
    # mask_evict_last), and Inductor's row config with its one pipeline stage.
    **{name: overrides for name, overrides in VARIANT_SETS["s26"].items()
       if name in ("default", "x_evict_first", "row_1x2048_w8_u1_evict", "stages1", "x_first_mask_last")},
    "row_1x2048_w16_u1_stages1": {**ROW_W16, "NUM_STAGES": 1},
    **tile_combinations(TILE_FAMILIES),
}
# Session 28 (H100s): the defaults met every target on one card and were 3% behind Inductor's row
# tiles on another (8192x4x8192 dim 2 dense: 264 against 255 µs; on the other cards 256), while
# x evict_first, even on every s27 case, made the column tiles 19% slower. s28 keeps s27's
# variants and adds a case of each tile the 72 rows use, so that a knob that changes every tile
# is judged on each (sweep_coverage.py; --best-overrides never picks an unjudged variant).
CASE_SETS["s28"] = [
    ((8192, 4, 8192), 2, "float16", "none"),
    ((8192, 4, 8192), 2, "float16", "dense"),
    ((8192, 4, 8192), 2, "float16", "bcast_n"),
    ((8192, 4, 8192), 2, "float16", "bcast_m"),
    ((65536, 4, 8192), 2, "float16", "dense"),
    ((65536, 4, 8192), 2, "float16", "bcast_n"),
    ((4, 8192, 8192), 2, "float16", "bcast_m"),
    ((8192, 4, 8192), 1, "float16", "none"),
    ((8192, 4, 8192), 1, "float16", "dense"),
    ((65536, 4, 8192), 0, "float16", "none"),
    ((65536, 4, 8192), 0, "float16", "bcast_n"),
    ((8192, 4, 8192), 0, "float16", "bcast_m"),
    ((8192, 4, 8192), 0, "float16", "bcast_n"),
]
VARIANT_SETS["s28"] = VARIANT_SETS["s27"]
# --best-overrides picks a variant whose time over the default's has a geometric mean over the
# cases below 1 - PICK_MARGIN, with no case more than PICK_MARGIN slower.
PICK_MARGIN = 0.01


def selected_variants(case_sets, only) -> dict:
    """Variant name -> overrides of these case sets, limited to the names in ``only`` if given."""
    return {name: overrides for case_set in case_sets for name, overrides in VARIANT_SETS[case_set].items()
            if not only or name in only}


def case_key(row) -> tuple:
    return row["set"], tuple(row["shape"]), row["dim"], row["dtype"], row["mask"]


def best_variant(rows, same_kernel, names, unjudged=()) -> tuple[str, float] | None:
    """(variant, geometric mean of its time over the default's) of the fastest variant over all
    the cases, or None where none is PICK_MARGIN faster on that mean without being PICK_MARGIN
    slower on a case. ``same_kernel[case][name]``: the variant whose timing ``name`` shares on
    that case (its plan and kernel options are that one's). A variant that failed on a case, or
    was not timed there, or summed wrong, is never picked; nor is one named in ``unjudged``."""
    times = {}
    for row in rows:
        case_times = times.setdefault(case_key(row), {})
        if row["ok"]:
            case_times[row["variant"]] = row["us"]
    best = None
    for name in names:
        if name == "default" or name in unjudged:
            continue
        ratios = []
        for key, case_times in times.items():
            timed_as = same_kernel.get(key, {}).get(name, name)
            if "default" not in case_times or timed_as not in case_times:
                break
            ratios.append(case_times[timed_as] / case_times["default"])
        else:
            if not ratios or max(ratios) > 1 + PICK_MARGIN:
                continue
            mean = math.prod(ratios) ** (1 / len(ratios))
            if mean < 1 - PICK_MARGIN and (best is None or mean < best[1]):
                best = (name, mean)
    return best


def write_best_overrides(path: Path, rows, same_kernel, variants: dict, unjudged=None) -> str:
    """Write the ``reduce_bench.py --set`` arguments of ``best_variant`` (an empty line where
    there is none) to ``path``; return what was picked, in words. ``unjudged``: variant name ->
    why the cases cannot judge it (``sweep_coverage.unjudged_variants``); such a variant is
    never picked, and is named where it would have been."""
    unjudged = unjudged or {}
    picked = best_variant(rows, same_kernel, variants, unjudged)
    overrides = {} if picked is None else variants[picked[0]]
    path.write_text(bench.settings_arguments(overrides) + "\n")
    if picked is None:
        said = (f"none (no variant is more than {PICK_MARGIN:.0%} faster on the geometric mean "
                f"without a case {PICK_MARGIN:.0%} slower)")
    else:
        said = f"{picked[0]}, {1 - picked[1]:.1%} faster on the geometric mean: {bench.settings_arguments(overrides)}"
    leader = best_variant(rows, same_kernel, variants)
    if leader is not None and leader[0] in unjudged:
        said += (f"; {leader[0]} would lead ({1 - leader[1]:.1%} faster) but is not picked: "
                 f"it {unjudged[leader[0]]}")
    return said


def host_seconds(torch, fn, calls=50) -> float:
    """Host time of one call: ``calls`` calls queued without waiting for the device."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    seconds = (time.perf_counter() - start) / calls
    torch.cuda.synchronize()
    return seconds


def main(argv=None) -> int:
    import torch

    reduce_module = importlib.import_module("stridelint.reference.reduce")  # the module, not the function
    reduce_module.AUTOTUNE = False  # time the plan each variant's constants give

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=sorted(CASE_SETS), default=["columns", "rows", "short"])
    parser.add_argument("--variants", nargs="+", help="only these variant names")
    parser.add_argument("--rounds", type=int, default=1, help="time each variant this many times, interleaved")
    parser.add_argument("--host", action="store_true", help="also time the host side of one call")
    parser.add_argument("--graph", action="store_true", help="also time one call replayed from a CUDA graph")
    parser.add_argument("--flush", default=bench.FLUSHES[0], choices=bench.FLUSHES,
                        help="how L2 is emptied before each timed call (reduce_bench.Timer)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--best-overrides", type=Path, metavar="PATH",
                        help="write the reduce_bench.py --set arguments of the best variant (empty: none pays)")
    args = parser.parse_args(argv)
    timer = bench.Timer("cuda", quick=False, flush=args.flush)
    copy = bench.copy_bandwidth(torch, "cuda", timer, quick=False)
    card = bench.card_identity(torch, "cuda")
    print(f"{torch.cuda.get_device_name()}{bench.card_note(card)}: copy bandwidth {copy / 1e9:.0f} GB/s; "
          f"L2 flush: {args.flush}", flush=True)
    rows, same_kernel = [], {}
    for case_set in args.cases:
        variants = selected_variants([case_set], args.variants)
        for shape, dim, dtype_name, mask_kind in CASE_SETS[case_set]:
            x, mask, scale = bench.make_inputs(torch, shape, getattr(torch, dtype_name), mask_kind, "cuda")
            expected = bench.eager_reduce(x, dim, mask, scale).float()
            tolerance = bench.sum_tolerance(expected)
            expanded = None if mask is None else mask.expand(x.shape)
            case_rows, seen = {}, {}
            shares = same_kernel.setdefault((case_set, shape, dim, dtype_name, mask_kind), {})
            for round_index in range(args.rounds):
                for name, overrides in variants.items():
                    with coverage.overridden(reduce_module, overrides):
                        plan = reduce_module._plan(x, dim, expanded)
                        # The plan on this GPU, and everything the launch compiles in or passes.
                        signature = (plan, coverage.signature(reduce_module, torch,
                                                              (shape, dim, dtype_name, mask_kind)))
                        if seen.setdefault(signature, name) != name:
                            shares[name] = seen[signature]
                            continue  # same kernel and plan as an earlier variant: timed there
                        row = case_rows.get(name)
                        if row is not None and "error" in row:
                            continue
                        try:
                            if row is None:
                                out = reduce_module.reduce(x, dim, mask, scale)
                                row = case_rows[name] = {
                                    "set": case_set, "shape": shape, "dim": dim, "dtype": dtype_name,
                                    "mask": mask_kind, "variant": name, "plan": plan._asdict(),
                                    "ok": bench.max_error(out, expected) <= tolerance,
                                    "bytes": bench.bytes_to_move(x, mask, scale, out), "samples_us": [],
                                }
                                row["call"] = functools.partial(reduce_module.reduce, x, dim, mask, scale, out=out)
                                if args.host:
                                    row["host_us"] = host_seconds(torch, row["call"]) * 1e6
                                if args.graph:
                                    row["graph_us"] = bench.graph_seconds(torch, timer, row["call"]) * 1e6
                            row["samples_us"].append(timer(row["call"]) * 1e6)
                        except Exception as error:  # noqa: BLE001 - a variant that does not compile on this GPU
                            case_rows[name] = {"variant": name, "error": f"{type(error).__name__}: {error}"[:200]}
            line = [f"{'x'.join(map(str, shape))} dim={dim} {dtype_name} {mask_kind}"]
            for name in variants:
                row = case_rows.get(name)
                if row is None:
                    line.append(f"{name} = {shares.get(name, 'default')}" if name != "default" else name)
                    continue
                if "error" in row:
                    line.append(f"{name} FAILED {row['error'][:60]}")
                    continue
                row.pop("call", None)
                row["us"] = statistics.median(row["samples_us"])
                row["of_copy"] = row["bytes"] / (row["us"] / 1e6) / copy
                spread = (f" [{min(row['samples_us']):.0f}-{max(row['samples_us']):.0f}]"
                          if len(row["samples_us"]) > 1 else "")
                extra = "".join(f" {key[:-3]} {row[key]:.0f}" for key in ("host_us", "graph_us") if key in row)
                line.append(f"{name} {row['us']:.0f}us{spread} {row['of_copy']:.0%}{extra}"
                            f"{'' if row['ok'] else ' WRONG'}")
                rows.append(row)
            print(" | ".join(line), flush=True)
            del x, mask, scale, expected, expanded, case_rows
            torch.cuda.empty_cache()
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
    best, defaults = {}, {}
    for row in rows:
        key = (row["set"], "x".join(map(str, row["shape"])), row["dim"], row["dtype"], row["mask"])
        if key not in best or row["us"] < best[key]["us"]:
            best[key] = row
        if row["variant"] == "default":
            defaults[key] = row
    print("\nbest variant per case:")
    for key, row in best.items():
        default = defaults.get(key)
        against = f" (default {default['us']:.0f}us {default['of_copy']:.0%})" if default else ""
        print(f"  {' '.join(map(str, key))}: {row['variant']} {row['us']:.0f}us {row['of_copy']:.0%}{against}")
    if args.best_overrides:
        variants = selected_variants(args.cases, args.variants)
        cases = [case for case_set in args.cases for case in CASE_SETS[case_set]]
        unjudged = coverage.unjudged_variants(reduce_module, torch, variants, cases)
        print(f"\nvariants that change a tile no case times (never picked): {len(unjudged)} of {len(variants)}")
        print("best over the whole sweep: "
              + write_best_overrides(args.best_overrides, rows, same_kernel, variants, unjudged))
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    status = main()
    print(f"total {time.perf_counter() - started:.0f} s")
    sys.exit(status)
