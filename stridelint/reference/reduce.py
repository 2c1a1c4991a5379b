"""Masked, scaled sum over one dim of a tensor: the Triton kernel stridelint is validated on.

Mask and scale may be broadcast (stride 0) views of tensors much smaller than ``x``: the wrapper
expands them without copying and the kernel loads each distinct value once per tile instead of
once per element.

How the work is laid out (``_plan``), from the shapes and strides alone:

- o, i, k name the outer kept dim, the kept dim a tile spans and the reduced dim. A program sums
  [BLOCK_I, BLOCK_K] tiles of one o along k, UNROLL tiles a loop step (their loads are
  independent, so they are in flight together); the tile's long side runs along x's contiguous
  dim.
- When k is x's contiguous dim ("row" tiles) and the mask repeats along a kept dim (stride 0),
  the tile spans that dim, so one load of a mask row serves BLOCK_I rows of x.
- When k is not contiguous, a tile is one reduced row of ONE_ROW_COLUMNS columns, short or long k
  alike: x, mask and scale then share one register layout. Except a long k (up to TWO_D_MAX_K)
  under no mask or one that is constant along k or along the columns, or under any mask where
  the sizes are compile-time constants (below): there 2-D tiles of COLUMN_BLOCK_I columns by
  COLUMN_TILE // COLUMN_BLOCK_I reduced rows, unsplit (Inductor's tile for these reduces).
- Unsplit 2-D tiles of large inputs compile their sizes in (``CONSTANT_SIZES``; one kernel per
  shape, as Inductor compiles them): the loop's trip count is then known.
- When there are too few programs to fill the GPU, k is split across programs (``splits``): each
  writes an fp32 partial sum, and the last program of each output tile to finish (an atomic
  counter per tile) adds the tile's partials in a fixed order, in the same launch (with int64
  offsets, a second kernel does).
- Offsets are int32 where every offset of the launch fits, else int64; and int64 for row tiles
  that read x only where the mask keeps it (measured faster, not understood).
- Mask and scale values constant along k are loaded once per program; a mask that varies along
  k is loaded one tile ahead of x. The mask drops products with as few selects as it can: a
  mask constant along k is applied to the sums at the end; where x is read only where kept, a
  0 scale stands in for dropped values; else each product is selected. Long column tiles of
  bf16 x under a dense mask load x with an evict_first hint (``DENSE_BF16_X_EVICTION``;
  measured, not understood). Where the mask is constant along x's contiguous dim, x is loaded
  only where the mask keeps it (whole vectors are kept or dropped, so dropped rows of x are
  never read).

A call whose shapes, strides, dtypes and devices were seen before (and the module's settings
unchanged) reuses that call's checks and launch arguments (``_LAUNCHES``): the host time of a
call is on the path of every launch.

An opt-in bounded autotune (``_tuned_plan``; STRIDELINT_REDUCE_AUTOTUNE=1 or ``AUTOTUNE =
True``): on a CUDA device, inputs of AUTOTUNE_MIN_ELEMENTS or more time a few candidate layouts
for their class (row tiles, row tiles sharing a mask row, short or long column tiles and how far
to split them; ``_candidate_plans``) on the call's own tensors, into a scratch output, and cache
the fastest per (shapes, strides, dtypes, dim); the heuristic plan is kept unless another is more
than AUTOTUNE_MARGIN faster. Candidates sum in different orders, so results may differ between
plans by rounding; a process uses one plan per key. It is off by default: on the H200 its
back-to-back timings picked a slower plan than the heuristic one (as an isolated launch after an
L2 flush measures it) on 17 of 64 benchmark rows and a faster one on 10
(docs/kernel-benchmarks.md).
"""

from __future__ import annotations

import functools
import math
import operator
import os
import statistics
from typing import NamedTuple

import torch
import triton
import triton.language as tl

from stridelint.reference import rank
from stridelint.reference.metadata import reduce_launch_metadata

X_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
MASK_DTYPES = (
    torch.bool,
    torch.int8,
    torch.uint8,
    torch.int16,
    torch.uint16,
    torch.int32,
    torch.uint32,
    torch.int64,
    torch.uint64,
)
SCALE_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

# Tile shapes measured on an H200 (benchmarks/tile_sweep.py, docs/kernel-benchmarks.md).
# A loop step sums UNROLL tiles whose loads are independent: they are in flight together, which
# is what a streaming kernel needs, while each tile keeps few elements per thread.
# Row tiles (k contiguous): ROW_ROWS rows of ROW_TILE // ROW_ROWS elements. 1 x 1024, 4 a step
# (was 1 x 2048, 2 a step): 3-5% faster with a mask broadcast over N, 3% without a mask, equal
# with a dense one (tile_sweep_third.txt).
ROW_TILE = 1024
ROW_ROWS = 1
ROW_WARPS = 4
ROW_UNROLL = 4
# Row tiles when the mask repeats along a kept dim: REUSE_ROWS rows share each mask load.
# 4 x 1024, 4 warps, 2 a step (was 4 x 2048, 8 warps, 1 a step): 5-10% faster on bf16 and on
# 4x8192x8192 and 65536x4x8192, equal on 8192x4x8192 fp16 (tile_sweep_classes/_third.txt).
REUSE_ROWS = 4
REUSE_TILE = 4096
REUSE_WARPS = 4
REUSE_UNROLL = 2
# A mask of at most SMALL_MASK_BYTES (physical storage) stays in cache, so sharing its loads buys
# little: those rows take SMALL_MASK_ROWS x SMALL_MASK_TILE // SMALL_MASK_ROWS tiles, SMALL_MASK_WARPS
# warps, SMALL_MASK_UNROLL a step. 1 x 2048, 8 warps, one a step: 4x8192x8192 under a (4, 1, 8192)
# mask 127-128 µs (2 x 4096: 128-130; the shared-mask 4 x 1024: 132-135; sizes compiled in;
# tile_sweep_s8, h200-2026-12-05-s10-sweep); at 8192x4x8192 (a 64 MiB mask) equal, at
# 65536x4x8192 (512 MiB) 10% slower and erratic (tile_sweep_s8), so larger masks keep 4 x 1024.
SMALL_MASK_BYTES = 2**20
SMALL_MASK_ROWS = 1
SMALL_MASK_TILE = 2048
SMALL_MASK_WARPS = 8
SMALL_MASK_UNROLL = 1
# Column tiles (k not contiguous): a program sums ONE_ROW_COLUMNS contiguous columns, one
# reduced row a tile: x, mask and scale then share one register layout (a 2-D tile gives a
# 1-byte mask and 2-byte x different vector widths, and converting between them cost up to 5x:
# benchmarks/tile_sweep.py). A reduced dim longer than SHORT_K takes LONG_COLUMNS-wide tiles,
# LONG_UNROLL a step, and is split across programs when they are too few.
ONE_ROW_COLUMNS = 1024
# Where the mask varies along a short k, ONE_ROW_MASKED_COLUMNS: 2048 columns ran 7-8% faster on a
# mask broadcast over N (8192x4x8192 and 65536x4x8192 summed over M), 4% on 4x8192x8192 summed
# over B with a mask broadcast over M, and equal on a dense mask; without a mask, or with one
# broadcast along k, they ran 12-16% slower (tile_sweep_4_splits_short.txt).
ONE_ROW_MASKED_COLUMNS = 2048
ONE_ROW_WARPS = 4
ONE_ROW_UNROLL = 1
SHORT_K = 256
LONG_COLUMNS = 2048
# Long one-row tiles that read x whole take LONG_WARPS warps; those that read it only where the
# mask keeps it (a mask constant along the columns), LONG_KEPT_WARPS. At 65536x4x8192 summed over
# B on an H100, 4 warps instead of 8: 1581-1586 µs instead of 1633-1646 under a mask over M
# (torch.compile max-autotune 1595-1597), 1411-1412 instead of 1440-1441 without a mask, 2118-2128
# instead of 2149-2151 under a dense one; under a mask over N 1100 instead of 1104 (fp16) but 1131
# instead of 1103 (bf16), so those keep 8 (tile_sweep s23, s23all; h100-2026-12-06-s23).
LONG_WARPS = 4
LONG_KEPT_WARPS = 8
LONG_UNROLL = 4
ONE_ROW_MAX_K = 2**62
ONE_ROW_MIN_PROGRAMS = 0
# 2-D column tiles: COLUMN_BLOCK_I columns over COLUMN_TILE // COLUMN_BLOCK_I reduced rows. A
# reduced dim longer than SHORT_K and at most TWO_D_MAX_K takes them, unsplit while there are
# TWO_D_MIN_PROGRAMS_PER_SM programs a multiprocessor, unless the mask varies along both the
# columns and k and the sizes are not compile-time constants. 64 x 64, 16 warps, unsplit (Inductor's tile for these reduces): at 8192x4x8192
# dim 0 and 4x8192x8192 dim 1, 136-139 µs instead of 143-147 without a mask, 138 instead of 148
# under a mask constant along k, 114-116 instead of 116-119 under one broadcast over N; under a
# mask that varies along both, 201-243 instead of 164-206 (dim 0), and at 65536x4x8192 2-3%
# slower than split one-row tiles (tile_sweep_s6*.txt).
COLUMN_BLOCK_I = 64
COLUMN_TILE = 4096
COLUMN_WARPS = 16
COLUMN_UNROLL = 1
# 2-D tiles that read x only where the mask keeps it (a mask constant along the columns) take
# COLUMN_KEPT_UNROLL tiles a step: under a mask over N at 8192x4x8192 dim 0 and 4x8192x8192 dim 1,
# 113-115 µs instead of 114-117 in two sweeps (tile_sweep_s6c, tile_sweep_s7); without a mask two
# tiles a step ran 151 instead of 139, so the others keep COLUMN_UNROLL.
COLUMN_KEPT_UNROLL = 2
TWO_D_MAX_K = 16384
TWO_D_MIN_PROGRAMS_PER_SM = 2
# Split the reduced dim across programs while there are fewer than SPLIT_MIN_PROGRAMS_PER_SM
# programs per multiprocessor, up to SPLIT_TARGET_PROGRAMS_PER_SM, each split at least
# SPLIT_MIN_STEPS loop steps long, and only for inputs of SPLIT_MIN_ELEMENTS or more (below that
# the second launch costs more than it gains). Target 8 (was 6) where one-row tiles are split
# now (masks varying along columns and k; 65536x4x8192 dim 0): 1-4% faster under a mask over M,
# 2% at 65536 under one over N, within 1% elsewhere (tile_sweep_s6*.txt).
SPLIT_MIN_PROGRAMS_PER_SM = 4
SPLIT_TARGET_PROGRAMS_PER_SM = 8
SPLIT_MIN_STEPS = 4
SPLIT_MIN_ELEMENTS = 2**22
# Multiprocessors assumed where there is no CUDA device (Triton's interpreter): an H200's.
DEFAULT_SM_COUNT = 132
FINALIZE_BLOCK = 1024
# Load each tile's mask one tile ahead: always where x's loads wait for it (LOAD_ONLY_KEPT);
# in column tiles for every mask that varies along k when PREFETCH_COLUMNS (measured faster or
# equal there; in row tiles it was up to 2x slower).
PREFETCH_COLUMNS = True
PREFETCH_ROWS = False
# L2 eviction hints for x's loads and for the mask's and scale's ("": none; "evict_first",
# "evict_last"), and the software-pipelining depth (None: Triton's default).
X_EVICTION = ""
OPERAND_EVICTION = ""
# x's hint in long column tiles of bf16 x under a dense mask (one that varies along every dim):
# evict_first ran 4x8192x8192 dim 1 at 208-209 µs instead of 244-245 (three runs each); fp16 x
# under the same mask ran 206 either way, so the rule is limited to bf16 (tile_sweep_third.txt);
# and to the one-row tiles it was measured on (2-D tiles took no hint better: tile_sweep_s7evict).
DENSE_BF16_X_EVICTION = "evict_first"
# x's hint in split one-row column tiles under a mask that x is read whole under (65536x4x8192
# summed over B): evict_first ran 1102-1107 µs under a mask over M instead of 1134-1139, equal
# under a dense mask; without a mask (964 -> 985) and under one over N, where x is read only where
# kept (758 -> 786), it was slower, so those take none (sweeps s10long, s10evict).
SPLIT_X_EVICTION = "evict_first"
NUM_STAGES = None
# Unsplit 2-D tiles of CONSTANT_SIZES_MIN_ELEMENTS or more take the sizes of i and k as
# compile-time constants, as Inductor compiles them (one kernel per shape; smaller inputs keep one
# kernel for all): the loop's trip count known, 8192x4x8192 dim 0 under a mask over M (varying
# along both the columns and k) ran in 157-158 µs instead of 207-209 on the same tile, and so
# beats the split one-row tiles' 164-166; dense 200 instead of 235 (205); without a mask 135
# instead of 139; under a mask over N 112-114 instead of 113-115 (tile_sweep_s7const).
CONSTANT_SIZES = True
CONSTANT_SIZES_MIN_ELEMENTS = 2**22
# Unsplit row tiles (k contiguous) of CONSTANT_SIZES_MIN_ELEMENTS or more compile their sizes in too:
# under a mask over M 146-149 µs instead of 151-152 (8192x4x8192), 1067-1073 instead of 1111-1114
# (65536x4x8192), dense 190 instead of 198, no mask 131 instead of 134; under a mask over N within
# 1% (tile_sweep_s8). Leaving out the bounds checks where the tiles cover the sizes exactly was
# within 1% on every row and tile (removed).
CONSTANT_ROW_SIZES = True
# Load a mask that is constant along k once per program (else with every tile, like one that varies).
HOIST_CONSTANT_MASK = True
# Read x only where the mask keeps it, when the mask is constant along x's contiguous dim.
SKIP_DROPPED = True
# A split reduce finishes in its one launch: the last program of each output tile to finish adds
# the tile's partials (else a second kernel, ``_finalize_kernel``, does). Same sums, same order.
# Launches with int64 offsets always take the second kernel: in one launch, 65536x4x8192 summed
# over B under a dense mask ran 2067-2159 µs instead of 1440-1447 (docs/kernel-benchmarks.md).
FINISH_SPLIT_IN_KERNEL = True
# Apply a mask where that takes fewer selects than one per product: a mask constant along the
# reduced dim to the sums; where x is read only where kept, to the scale (a 0 scale where dropped).
MASK_AFTER_SUM = True
# Offsets in int32 where every offset of the launch fits (else int64), as Inductor does.
NARROW_INDEX = True
# Row tiles that read x only where a mask constant along k keeps it take int64 offsets: 101-103 µs
# instead of 105-106 at 8192x4x8192 and 4x8192x8192 under a mask broadcast over N, in four sweeps
# (s5c, s5d, s6, s6b); equal or 1-2% slower elsewhere (measured, not understood).
KEPT_ROWS_WIDE_INDEX = True
INT32_MAX = 2**31 - 1
# Bounded autotune (``_tuned_plan``): on CUDA inputs of AUTOTUNE_MIN_ELEMENTS or more, time the
# candidates of the input's class AUTOTUNE_ROUNDS rounds of AUTOTUNE_REPS launches each
# (interleaved, median of the rounds; fewer rounds where that would pass AUTOTUNE_MAX_SECONDS)
# and keep the fastest if it beats the heuristic plan by more than AUTOTUNE_MARGIN.
AUTOTUNE = os.environ.get("STRIDELINT_REDUCE_AUTOTUNE", "0") == "1"
AUTOTUNE_DEVICE_TYPES = ("cuda",)
AUTOTUNE_MIN_ELEMENTS = 2**22
AUTOTUNE_ROUNDS = 5
AUTOTUNE_REPS = 3
AUTOTUNE_MAX_SECONDS = 0.5
AUTOTUNE_MARGIN = 0.01
# Candidate tiles (BLOCK_I, BLOCK_K, num_warps, UNROLL) per class, tried beside the heuristic
# one; each is clipped to the input's sizes. Long column tiles are also tried with the reduced
# dim split for each of SPLIT_CANDIDATES programs per multiprocessor (0: not split), and without
# a mask the 2-D column tile too.
ROW_CANDIDATES = ((1, 2048, 4, 4), (1, 4096, 8, 2), (1, 8192, 16, 1))
REUSE_CANDIDATES = ((4, 1024, 4, 2), (2, 2048, 4, 2), (2, 4096, 8, 1))
SHORT_CANDIDATES = ((1024, 1, 4, 1), (2048, 1, 4, 1), (1024, 1, 4, 4), (2048, 1, 8, 4))
LONG_CANDIDATES = ((2048, 1, 8, 2), (1024, 1, 4, 4))
SPLIT_CANDIDATES = (4, 6, 12, 16)
TWO_D_SPLIT_CANDIDATES = (0,)


@triton.jit
def _load_operand(ptr, o, i, k, i_ok, k_ok, live, stride_o, stride_i, stride_k,
                  BROADCAST_O: tl.constexpr, BROADCAST_I: tl.constexpr, BROADCAST_K: tl.constexpr,
                  EVICTION: tl.constexpr):
    """Load the mask or scale values that go with x's [BLOCK_I, BLOCK_K] tile. A broadcast dim
    adds no offset term and keeps size 1 in the result, so each distinct value is loaded once
    (semantics §0 rule 1); the result broadcasts against x's tile. ``live``: the program has
    any k to sum, a [1] block (guards the loads that ignore ``k_ok``)."""
    if not BROADCAST_O:
        ptr += o * stride_o
    if BROADCAST_I and BROADCAST_K:
        tile = tl.load(ptr + tl.zeros((1, 1), dtype=tl.int32), mask=live[:, None], other=0,
                       eviction_policy=EVICTION)
    elif BROADCAST_K:
        tile = tl.load(ptr + i * stride_i, mask=i_ok & live, other=0, eviction_policy=EVICTION)[:, None]
    elif BROADCAST_I:
        tile = tl.load(ptr + k * stride_k, mask=k_ok, other=0, eviction_policy=EVICTION)[None, :]
    else:
        tile = tl.load(ptr + i[:, None] * stride_i + k[None, :] * stride_k, mask=i_ok[:, None] & k_ok[None, :],
                       other=0, eviction_policy=EVICTION)
    return tile


@triton.jit(launch_metadata=reduce_launch_metadata)
def _reduce_kernel(
    X, Mask, Scale, Y, Partial, Arrivals, DIM,
    size_o, size_i, size_k, k_per_split,
    stride_xo, stride_xi, stride_xk,
    stride_mo, stride_mi, stride_mk,
    stride_so, stride_si, stride_sk,
    stride_yo, stride_yi,
    HAS_MASK: tl.constexpr, HAS_SCALE: tl.constexpr, LOAD_ONLY_KEPT: tl.constexpr,
    BROADCAST_MO: tl.constexpr, BROADCAST_MI: tl.constexpr, BROADCAST_MK: tl.constexpr,
    BROADCAST_SO: tl.constexpr, BROADCAST_SI: tl.constexpr, BROADCAST_SK: tl.constexpr,
    PREFETCH_MASK: tl.constexpr, BLOCK_I: tl.constexpr, BLOCK_K: tl.constexpr, UNROLL: tl.constexpr,
    SPLIT: tl.constexpr, X_EVICTION: tl.constexpr, OPERAND_EVICTION: tl.constexpr, HOIST_MASK: tl.constexpr,
    FINISH_IN_KERNEL: tl.constexpr, WIDE_INDEX: tl.constexpr,
    MASK_SUMS: tl.constexpr, SELECT_PRODUCTS: tl.constexpr, ZERO_DROPPED_SCALE: tl.constexpr,
    SIZE_I: tl.constexpr = 0, SIZE_K: tl.constexpr = 0,
):
    """Y[o, i] = sum over k of X[o, i, k] * Scale[o, i, k] where Mask[o, i, k] != 0.

    Program (p, s) sums BLOCK_I outputs of one o over the s-th k_per_split-long stretch of k,
    BLOCK_K * UNROLL of k a loop step.
    With SPLIT it writes fp32 partial sums to Partial[s, o, i] (contiguous); without, it writes Y.
    With SPLIT and FINISH_IN_KERNEL the last program of each output tile to finish (counted in
    Arrivals[p], zero before the launch and reset to zero by that program) adds the tile's
    partials in order of s, as ``_finalize_kernel`` would in a second launch.
    WIDE_INDEX: offsets in int64; else int32 (the host checks that every offset fits).
    SIZE_I, SIZE_K: size_i and size_k compiled in (unsplit launches only), else 0: read at run time.
    How the mask drops products (each result the same: dropped products add nothing, and an inf
    or NaN there never leaks): SELECT_PRODUCTS, a select on every product; MASK_SUMS (the mask is
    constant along k), a select on each sum at the end; ZERO_DROPPED_SCALE (with LOAD_ONLY_KEPT:
    dropped x load as 0), a 0 scale where dropped, one select per scale value.
    ``DIM`` is the reduced dim in the tensors' own order: the kernel never reads it, the
    launch-metadata hook does (with ``Mask``, which keeps that order too, and ``Y``, the real
    output).
    LOAD_ONLY_KEPT: x is read only where the mask keeps it. Set when the mask is constant along
    x's contiguous axis, where it keeps or drops whole vector loads; a mask that varies along
    that axis would split them into scalar loads, so x is then read whole (its memory sectors
    are fetched anyway).
    """
    pid = tl.program_id(0)
    split_index = tl.program_id(1)
    if WIDE_INDEX:
        pid = pid.to(tl.int64)
        split_index = split_index.to(tl.int64)
    if SIZE_I > 0:
        size_i = SIZE_I
    i_blocks = tl.cdiv(size_i, BLOCK_I)
    o = pid // i_blocks
    i = (pid % i_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    i_ok = i < size_i
    if SIZE_K > 0:
        k_lo = 0
        k_hi = SIZE_K
    else:
        k_lo = split_index * k_per_split
        k_hi = tl.minimum(k_lo + k_per_split, size_k)
    live = (tl.zeros((1,), dtype=tl.int32) + k_lo) < k_hi  # a block: the interpreter rejects a scalar mask
    k = k_lo + tl.arange(0, BLOCK_K)
    # Values constant along k: one load per program. With PREFETCH_MASK (x's loads wait for the
    # mask), each tile's mask is loaded one tile ahead (mask_next).
    if HAS_MASK and ((BROADCAST_MK and HOIST_MASK) or PREFETCH_MASK):
        mask_next = _load_operand(Mask, o, i, k, i_ok, k < k_hi, live, stride_mo, stride_mi, stride_mk,
                                  BROADCAST_MO, BROADCAST_MI, BROADCAST_MK, OPERAND_EVICTION)
    if HAS_SCALE and BROADCAST_SK:
        scale_fixed = _load_operand(Scale, o, i, k, i_ok, k < k_hi, live, stride_so, stride_si, stride_sk,
                                    BROADCAST_SO, BROADCAST_SI, BROADCAST_SK, OPERAND_EVICTION).to(tl.float32)
    acc = tl.zeros((BLOCK_I, BLOCK_K), dtype=tl.float32)
    # UNROLL tiles a step, unrolled: their loads are independent, so they are in flight together.
    for k_step in range(k_lo, k_hi, BLOCK_K * UNROLL):
        for u in tl.static_range(UNROLL):
            k = k_step + u * BLOCK_K + tl.arange(0, BLOCK_K)
            k_ok = k < k_hi
            in_bounds = i_ok[:, None] & k_ok[None, :]
            keep = in_bounds
            if HAS_MASK:
                if BROADCAST_MK and HOIST_MASK:
                    mask = mask_next
                elif PREFETCH_MASK:
                    mask = mask_next
                    k_next = k + BLOCK_K
                    mask_next = _load_operand(Mask, o, i, k_next, i_ok, k_next < k_hi, live,
                                              stride_mo, stride_mi, stride_mk,
                                              BROADCAST_MO, BROADCAST_MI, BROADCAST_MK, OPERAND_EVICTION)
                else:
                    mask = _load_operand(Mask, o, i, k, i_ok, k_ok, live, stride_mo, stride_mi, stride_mk,
                                         BROADCAST_MO, BROADCAST_MI, BROADCAST_MK, OPERAND_EVICTION)
                keep = in_bounds & (mask != 0)
            x_offsets = o * stride_xo + i[:, None] * stride_xi + k[None, :] * stride_xk
            x = tl.load(X + x_offsets, mask=keep if LOAD_ONLY_KEPT else in_bounds, other=0.0,
                        eviction_policy=X_EVICTION).to(tl.float32)
            if HAS_SCALE:
                if BROADCAST_SK:
                    scale = scale_fixed
                else:
                    scale = _load_operand(Scale, o, i, k, i_ok, k_ok, live, stride_so, stride_si, stride_sk,
                                          BROADCAST_SO, BROADCAST_SI, BROADCAST_SK, OPERAND_EVICTION).to(tl.float32)
                if ZERO_DROPPED_SCALE:
                    # x was read only where kept (0 elsewhere): a 0 scale where dropped keeps an inf
                    # or NaN scale out, one select per mask value instead of one per product.
                    scale = tl.where(mask != 0, scale, 0.0)
                x *= scale
            # Masked-out products are dropped, not added as 0 * value: an inf or NaN there must not
            # leak. Out of bounds, x and the operands load as 0.
            if SELECT_PRODUCTS:
                acc += tl.where(keep, x, 0.0)
            else:
                acc += x
    if MASK_SUMS:  # a mask constant along k keeps or drops whole sums
        acc = tl.where(mask_next != 0, acc, 0.0)
    total = tl.sum(acc, axis=1)
    if SPLIT:
        tl.store(Partial + (split_index * size_o + o) * size_i + i, total, mask=i_ok)
        if FINISH_IN_KERNEL:
            # Every thread's partial is stored before one thread's release (the barrier), and
            # the last program reads the partials only after its acquire, past L1 (.cg).
            tl.debug_barrier()
            arrived = tl.atomic_add(Arrivals + pid, 1, sem="acq_rel", scope="gpu")
            if arrived == tl.num_programs(1) - 1:
                tl.atomic_xchg(Arrivals + pid, 0, sem="relaxed", scope="gpu")
                summed = tl.zeros((BLOCK_I,), dtype=tl.float32)
                for s in range(tl.num_programs(1)):
                    summed += tl.load(Partial + (s * size_o + o) * size_i + i, mask=i_ok, other=0.0,
                                      cache_modifier=".cg")
                tl.store(Y + o * stride_yo + i * stride_yi, summed.to(Y.dtype.element_ty), mask=i_ok)
    else:
        tl.store(Y + o * stride_yo + i * stride_yi, total.to(Y.dtype.element_ty), mask=i_ok)


@triton.jit
def _finalize_kernel(Partial, Y, splits, size_o, size_i, stride_yo, stride_yi, BLOCK: tl.constexpr):
    """Y[o, i] = sum over s of Partial[s, o, i], added in order of s (deterministic)."""
    n = size_o * size_i
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offsets < n
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, splits):
        acc += tl.load(Partial + s * n + offsets, mask=ok, other=0.0)
    o = offsets // size_i
    i = offsets % size_i
    tl.store(Y + o * stride_yo + i * stride_yi, acc.to(Y.dtype.element_ty), mask=ok)


class Plan(NamedTuple):
    """How one reduce is laid out: x's dims for o and i, the tile, and the split of k."""

    outer: int
    inner: int
    block_i: int
    block_k: int
    num_warps: int
    unroll: int
    splits: int
    k_per_split: int


def _cdiv(a: int, b: int) -> int:
    """Host-side ceil division (triton.cdiv goes through Triton's constexpr-function wrapper, whose
    call costs microseconds: reduce's host time is on the timed path of every launch)."""
    return -(-a // b)


def _next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


@functools.lru_cache(maxsize=None)
def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return DEFAULT_SM_COUNT
    return torch.cuda.get_device_properties(device).multi_processor_count


def _fast_dim(x: torch.Tensor) -> int:
    """x's contiguous dim: the smallest stride among dims longer than one."""
    shape, stride = x.shape, x.stride()
    return min(range(3), key=lambda d: (shape[d] == 1, stride[d]))


def _roles(x: torch.Tensor, dim: int, mask: torch.Tensor | None = None) -> tuple[tuple[int, int, int], int]:
    """((outer, inner, reduced) dims of x, x's contiguous dim). k is the reduced dim; i is the
    kept dim the tile spans: the contiguous one unless x is contiguous along k. Then it is a
    kept dim along which the mask repeats (so its loads are shared by the tile's rows), else
    the larger kept dim, which fills the tile best."""
    kept_dims = [d for d in range(3) if d != dim]
    fast_dim = _fast_dim(x)
    if fast_dim != dim:
        inner = fast_dim
    else:
        mask_stride = None if mask is None else mask.stride()
        repeated = [] if mask is None else [d for d in kept_dims if mask_stride[d] == 0 and x.shape[d] > 1]
        inner = max(repeated or kept_dims, key=lambda d: x.shape[d])
    outer = kept_dims[0] if kept_dims[1] == inner else kept_dims[1]
    return (outer, inner, dim), fast_dim


class Tile(NamedTuple):
    block_i: int
    block_k: int
    num_warps: int
    unroll: int
    split_below_per_sm: int | None = None  # split k only below this many programs a multiprocessor


def _tile_shape(size_o: int, size_i: int, size_k: int, reduced_is_fast: bool,
                mask_repeats_along_i: bool = False, mask_varies_along_k: bool = False,
                small_mask: bool = False, constant_sizes: bool = False) -> Tile:
    """(BLOCK_I, BLOCK_K, num_warps, UNROLL): the tile's long side runs along x's contiguous
    axis, so loads coalesce whether or not that axis is the reduced one. (A mask that does not
    repeat along i varies along it.) ``small_mask``: the mask's storage is at most
    SMALL_MASK_BYTES. ``constant_sizes``: an unsplit 2-D tile would compile its sizes in
    (``_constant_sizes``)."""
    programs_one_row = size_o * _cdiv(size_i, ONE_ROW_COLUMNS)
    size_i, size_k = _next_power_of_2(max(size_i, 1)), _next_power_of_2(max(size_k, 1))
    if reduced_is_fast:
        if mask_repeats_along_i and small_mask:
            block_i = min(size_i, SMALL_MASK_ROWS)
            return Tile(block_i, min(size_k, SMALL_MASK_TILE // block_i), SMALL_MASK_WARPS, SMALL_MASK_UNROLL)
        if mask_repeats_along_i:
            block_i = min(size_i, REUSE_ROWS)
            return Tile(block_i, min(size_k, REUSE_TILE // block_i), REUSE_WARPS, REUSE_UNROLL)
        block_k = min(size_k, ROW_TILE // min(ROW_ROWS, size_i))
        return Tile(min(size_i, ROW_TILE // block_k), block_k, ROW_WARPS, ROW_UNROLL)
    two_d = SHORT_K < size_k <= TWO_D_MAX_K and (mask_repeats_along_i or not mask_varies_along_k or constant_sizes)
    if size_k <= ONE_ROW_MAX_K and programs_one_row >= ONE_ROW_MIN_PROGRAMS and not two_d:
        if size_k > SHORT_K:
            warps = LONG_KEPT_WARPS if mask_repeats_along_i else LONG_WARPS
            return Tile(min(size_i, LONG_COLUMNS), 1, warps, LONG_UNROLL)
        columns = ONE_ROW_MASKED_COLUMNS if mask_varies_along_k else ONE_ROW_COLUMNS
        return Tile(min(size_i, columns), 1, ONE_ROW_WARPS, min(ONE_ROW_UNROLL, size_k))
    block_i = min(size_i, COLUMN_BLOCK_I)
    block_k = min(size_k, max(1, COLUMN_TILE // block_i))
    # More warps pay off only on full tiles; on a reduced dim of 4 they were 3x slower than 4.
    return Tile(block_i, block_k, COLUMN_WARPS if block_i * block_k >= COLUMN_TILE else 4,
                COLUMN_KEPT_UNROLL if mask_repeats_along_i else COLUMN_UNROLL,
                TWO_D_MIN_PROGRAMS_PER_SM if two_d else None)


def _splits(programs: int, size_k: int, step: int, elements: int, sm_count: int,
            target_per_sm: int | None = None, below_per_sm: int | None = None) -> tuple[int, int]:
    """(splits, k_per_split): cut k into stretches of whole loop steps (``step`` long) while
    there are fewer than ``below_per_sm`` programs a multiprocessor (default
    SPLIT_MIN_PROGRAMS_PER_SM), aiming at ``target_per_sm`` programs a multiprocessor (default
    SPLIT_TARGET_PROGRAMS_PER_SM; 0: never split)."""
    target = SPLIT_TARGET_PROGRAMS_PER_SM if target_per_sm is None else target_per_sm
    below = SPLIT_MIN_PROGRAMS_PER_SM if below_per_sm is None else below_per_sm
    if target <= 0 or elements < SPLIT_MIN_ELEMENTS or programs >= below * sm_count:
        return 1, max(size_k, 1)
    splits = min(_cdiv(target * sm_count, programs), size_k // (step * SPLIT_MIN_STEPS))
    if splits <= 1:
        return 1, max(size_k, 1)
    k_per_split = _cdiv(_cdiv(size_k, splits), step) * step
    return _cdiv(size_k, k_per_split), k_per_split


def _layout(x: torch.Tensor, dim: int, mask: torch.Tensor | None):
    """((outer, inner), (size_o, size_i, size_k), (reduced dim is x's contiguous one, the mask
    repeats along the tile's kept dim, the mask varies along the reduced dim, the mask's storage
    is at most SMALL_MASK_BYTES)): the arguments of ``_tile_shape`` after the sizes."""
    (outer, inner, _), fast_dim = _roles(x, dim, mask)
    size_o, size_i, size_k = x.shape[outer], x.shape[inner], x.shape[dim]
    mask_stride = None if mask is None else mask.stride()
    repeats = mask is not None and mask_stride[inner] == 0 and size_i > 1
    varies = mask is not None and mask_stride[dim] != 0 and size_k > 1
    small = mask is not None and _storage_bytes(mask) <= SMALL_MASK_BYTES
    return (outer, inner), (size_o, size_i, size_k), (fast_dim == dim, repeats, varies, small)


def _storage_bytes(t: torch.Tensor) -> int:
    """The bytes a (possibly broadcast) view spans: its stride-0 dims count once."""
    return t.element_size() * math.prod(size for size, stride in zip(t.shape, t.stride()) if stride != 0)


def _make_plan(x: torch.Tensor, roles, sizes, tile: Tile, target_per_sm: int | None = None) -> Plan:
    size_o, size_i, size_k = sizes
    programs = size_o * _cdiv(size_i, tile.block_i)
    splits, k_per_split = _splits(programs, size_k, tile.block_k * tile.unroll, x.numel(), _sm_count(x.device),
                                  target_per_sm, tile.split_below_per_sm)
    return Plan(*roles, tile.block_i, tile.block_k, tile.num_warps, tile.unroll, splits, k_per_split)


def _constant_sizes(x: torch.Tensor, sizes) -> bool:
    """Whether a 2-D tile for these sizes would run unsplit with its sizes compiled in."""
    size_o, size_i, _ = sizes
    return (CONSTANT_SIZES and x.numel() >= CONSTANT_SIZES_MIN_ELEMENTS
            and size_o * _cdiv(size_i, COLUMN_BLOCK_I) >= TWO_D_MIN_PROGRAMS_PER_SM * _sm_count(x.device))


def _plan(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> Plan:
    """The heuristic layout of one reduce, from shapes and strides alone."""
    return _heuristic_plan(x, *_layout(x, dim, mask))


def _heuristic_plan(x: torch.Tensor, roles, sizes, flags) -> Plan:
    """``_plan`` from ``_layout``'s answer. Small-mask row tiles only where their sizes are
    compiled in: with sizes read at run time they ran 166-170 µs instead of 131-132 at
    4x8192x8192 (tile_sweep_s8final), so there the shared-mask tile stays."""
    plan = _make_plan(x, roles, sizes, _tile_shape(*sizes, *flags, _constant_sizes(x, sizes)))
    reduced_is_fast, repeats, varies, small = flags
    if small and reduced_is_fast and not _size_constants(plan, x, False, sizes[1:])["SIZE_K"]:
        plan = _make_plan(x, roles, sizes, _tile_shape(*sizes, reduced_is_fast, repeats, varies, False,
                                                       _constant_sizes(x, sizes)))
    return plan


def _clip_tile(block_i: int, block_k: int, num_warps: int, unroll: int, size_i: int, size_k: int) -> Tile:
    size_i, size_k = _next_power_of_2(max(size_i, 1)), _next_power_of_2(max(size_k, 1))
    return Tile(min(block_i, size_i), min(block_k, size_k), num_warps, max(1, min(unroll, size_k)))


def _candidate_plans(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> list[Plan]:
    """The plans the autotune times for this layout: the heuristic plan first, then the
    candidates of its class, clipped to the sizes, without repeats."""
    roles, sizes, flags = _layout(x, dim, mask)
    (_, size_i, size_k), (reduced_is_fast, repeats, _, _) = sizes, flags
    plans = [_heuristic_plan(x, roles, sizes, flags)]
    if reduced_is_fast:
        options = [(tile, None) for tile in (REUSE_CANDIDATES if repeats else ROW_CANDIDATES)]
    elif size_k <= SHORT_K:
        options = [(tile, None) for tile in SHORT_CANDIDATES]
    else:
        default = (LONG_COLUMNS, 1, LONG_WARPS, LONG_UNROLL)
        options = [(tile, target) for tile in (default, *LONG_CANDIDATES) for target in (None, *SPLIT_CANDIDATES)]
        if mask is None:
            block_i = min(_next_power_of_2(size_i), COLUMN_BLOCK_I)
            two_d = (block_i, max(1, COLUMN_TILE // block_i), COLUMN_WARPS, COLUMN_UNROLL)
            options += [(two_d, target) for target in (None, *TWO_D_SPLIT_CANDIDATES)]
    for tile, target in options:
        plan = _make_plan(x, roles, sizes, _clip_tile(*tile, size_i, size_k), target)
        if plan not in plans:
            plans.append(plan)
    return plans


def describe_plan(plan: Plan) -> str:
    """A short name of a plan: BLOCK_I x BLOCK_K tile, warps, unroll, splits."""
    return f"{plan.block_i}x{plan.block_k} w{plan.num_warps} u{plan.unroll} s{plan.splits}"


# reduce's arguments less the tensors' addresses (shapes, strides, dtypes, devices, dim), and the
# module's settings -> (launch, output shape, output dtype): a call seen before skips the checks
# and the plan, whose host time is on the path of every launch (docs/kernel-benchmarks.md).
# Not used with the autotune on. Cleared when full.
_LAUNCHES: dict[tuple, tuple] = {}
LAUNCH_CACHE_SIZE = 4096

# (shapes, strides, dtypes, dim, device) -> the plan the autotune chose.
_TUNED: dict[tuple, Plan] = {}


def _tune_key(x, dim, mask, scale, out_dtype) -> tuple:
    def operand(t):
        return None if t is None else (t.stride(), t.dtype)

    return (tuple(x.shape), x.stride(), x.dtype, str(x.device), dim, operand(mask), operand(scale), out_dtype)


def _should_tune(x: torch.Tensor) -> bool:
    if not AUTOTUNE or x.device.type not in AUTOTUNE_DEVICE_TYPES or x.numel() < AUTOTUNE_MIN_ELEMENTS:
        return False
    # Timing inside a CUDA graph capture would record the tuning launches into the graph.
    return not (x.device.type == "cuda" and torch.cuda.is_current_stream_capturing())


def _time_plans(runs) -> list[float]:
    """Seconds per launch of each callable (inf for one that fails to compile or launch, except
    the first, the heuristic plan, whose errors propagate): one warm-up launch each (it
    compiles), then interleaved rounds of AUTOTUNE_REPS launches timed with CUDA events; the
    median of the rounds."""
    alive = []
    for index, run in enumerate(runs):
        try:
            run()
            alive.append(index)
        except Exception:  # e.g. out of registers or shared memory for this tile on this GPU
            if index == 0:
                raise
    torch.cuda.synchronize()

    def timed_round(indices, reps):
        events = []
        for index in indices:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(reps):
                runs[index]()
            end.record()
            events.append((index, start, end))
        torch.cuda.synchronize()
        return {index: start.elapsed_time(end) / 1e3 / reps for index, start, end in events}

    first = timed_round(alive, 1)
    rounds = max(1, min(AUTOTUNE_ROUNDS, int(AUTOTUNE_MAX_SECONDS / max(sum(first.values()) * AUTOTUNE_REPS, 1e-9))))
    samples = {index: [] for index in alive}
    for _ in range(rounds):
        for index, seconds in timed_round(alive, AUTOTUNE_REPS).items():
            samples[index].append(seconds)
    return [statistics.median(samples[index]) if index in samples else float("inf") for index in range(len(runs))]


def _tuned_plan(x, dim, mask, scale, out, heuristic: Plan) -> Plan:
    """The cached choice for this key; on first sight, time the candidates into a scratch
    output (``out`` may alias nothing the kernel reads, but is never written twice)."""
    key = _tune_key(x, dim, mask, scale, out.dtype)
    plan = _TUNED.get(key)
    if plan is not None:
        return plan
    candidates = _candidate_plans(x, dim, mask)
    if candidates[0] != heuristic:  # the constants changed under us: trust the heuristic plan
        candidates.insert(0, heuristic)
    plan = heuristic
    if len(candidates) > 1:
        scratch = torch.empty_strided(out.shape, out.stride(), dtype=out.dtype, device=out.device)
        times = _time_plans([functools.partial(_launch, candidate, x, dim, mask, scale, scratch)
                             for candidate in candidates])
        best = min(range(len(candidates)), key=times.__getitem__)
        if times[best] < times[0] * (1 - AUTOTUNE_MARGIN):
            plan = candidates[best]
    _TUNED[key] = plan
    return plan


def plan_for(x, dim, mask=None, scale=None, *, out_dtype=None) -> Plan:
    """The plan ``reduce`` uses for these arguments: the cached autotune choice where there is
    one, else the heuristic plan (for benchmarks and tests; tunes nothing)."""
    dim %= 3
    mask = None if mask is None else mask.expand(x.shape)
    scale = None if scale is None else scale.expand(x.shape)
    return _TUNED.get(_tune_key(x, dim, mask, scale, out_dtype or x.dtype)) or _plan(x, dim, mask)


def _expand_operand(name: str, operand: torch.Tensor, x: torch.Tensor, dtypes, kind: str) -> torch.Tensor:
    """Validate a mask or scale and expand it to x's shape as a zero-copy view."""
    if operand.device != x.device:
        raise ValueError(f"{name} is on {operand.device} but x is on {x.device}")
    if operand.dtype not in dtypes:
        raise ValueError(f"{name} must be {kind}, got {operand.dtype}")
    try:
        return operand.expand(x.shape)
    except RuntimeError:
        raise ValueError(
            f"{name} of shape {tuple(operand.shape)} is not broadcastable to x's shape {tuple(x.shape)}"
        ) from None


def reduce(x, dim, mask=None, scale=None, *, out=None, out_dtype=None):
    """Sum over ``dim`` of ``x * scale`` where ``mask != 0``, accumulated in fp32.

    ``x`` is an fp16, bf16 or fp32 tensor of one or more dims, with any strides. ``mask`` (bool
    or integer) and ``scale`` (floating point) may have any shape broadcastable to ``x``; they
    are expanded without copying, so a mask broadcast over a large dim costs only its storage.
    The result has ``x.shape`` without ``dim`` and dtype ``out_dtype`` (default ``x.dtype``); it
    is written to ``out`` when given. Raises ValueError on invalid inputs. The kernel is 3-D:
    other ranks are summed as 3-D views (``rank.three_d_pieces``).
    """
    if x.ndim != 3:
        return _reduce_any_rank(x, dim, mask, scale, out, out_dtype)
    key = None
    if not AUTOTUNE:
        key = (x.shape, x.stride(), x.dtype, x.device, dim, out_dtype, _operand_key(mask), _operand_key(scale),
               _operand_key(out), _setting_values(globals()))
        known = _LAUNCHES.get(key)
        if known is not None:  # these arguments were validated and planned before: launch again
            spec, out_shape, out_dtype = known
            if out is None:
                out = torch.empty(out_shape, dtype=out_dtype, device=x.device)
            if spec is not None:
                _run(spec, x, None if mask is None else mask.expand(x.shape),
                     None if scale is None else scale.expand(x.shape), out)
            return out
    dim, mask, scale, out = _checked_arguments(x, dim, mask, scale, out, out_dtype)
    spec = None
    if out.numel() != 0:
        plan = _plan(x, dim, mask)
        if _should_tune(x):
            plan = _tuned_plan(x, dim, mask, scale, out, plan)
        spec = _launch_spec(plan, x, dim, mask, scale, out)
        _run(spec, x, mask, scale, out)
    if key is not None:
        if len(_LAUNCHES) >= LAUNCH_CACHE_SIZE:
            _LAUNCHES.clear()
        _LAUNCHES[key] = (spec, tuple(out.shape), out.dtype)
    return out


def _reduce_any_rank(x, dim, mask, scale, out, out_dtype):
    """``reduce`` of an x that is not 3-D: each 3-D view of it that ``rank.three_d_pieces`` gives
    is summed by the 3-D path (one launch where the kept dims merge into two)."""
    dim, mask, scale, out = _checked_arguments(x, dim, mask, scale, out, out_dtype)
    if out.numel() != 0:
        for piece in rank.three_d_pieces(x, dim, mask, scale, out):
            reduce(piece.x, 2, piece.mask, piece.scale, out=piece.out, out_dtype=out.dtype)
    return out


def _checked_arguments(x, dim, mask, scale, out, out_dtype):
    """(dim in range(x.ndim), mask and scale expanded to x's shape or None, out): ``reduce``'s
    arguments validated, out made where none was given. Raises ValueError."""
    if x.ndim == 0:
        raise ValueError("x must have at least one dim, got a 0-D tensor")
    if x.dtype not in X_DTYPES:
        raise ValueError(f"x must be float16, bfloat16 or float32, got {x.dtype}")
    if not -x.ndim <= dim < x.ndim:
        raise ValueError(f"dim {dim} is out of range for a {x.ndim}-D x")
    dim %= x.ndim
    out_shape = tuple(size for d, size in enumerate(x.shape) if d != dim)
    out_dtype = out_dtype or x.dtype
    if out_dtype not in X_DTYPES:
        raise ValueError(f"out_dtype must be float16, bfloat16 or float32, got {out_dtype}")
    if out is None:
        out = torch.empty(out_shape, dtype=out_dtype, device=x.device)
    elif out.device != x.device:
        raise ValueError(f"out is on {out.device} but x is on {x.device}")
    elif tuple(out.shape) != out_shape or out.dtype != out_dtype:
        raise ValueError(
            f"out must have shape {out_shape} and dtype {out_dtype}, got {tuple(out.shape)} and {out.dtype}"
        )
    elif any(stride == 0 and size > 1 for stride, size in zip(out.stride(), out.shape)):
        # Several outputs would share one memory location (semantics §1.3).
        raise ValueError("out must not be a broadcast (stride-0) view")
    mask = None if mask is None else _expand_operand("mask", mask, x, MASK_DTYPES, "bool or an integer dtype")
    scale = None if scale is None else _expand_operand("scale", scale, x, SCALE_DTYPES, "a floating-point dtype")
    return dim, mask, scale, out


def _operand_key(operand: torch.Tensor | None):
    return None if operand is None else (operand.shape, operand.stride(), operand.dtype, operand.device)


def _offsets_fit_int32(plan: Plan, sizes, strides) -> bool:
    """Whether every offset the kernel computes fits int32: those of x, mask, scale and out
    (strides along o, i, k) over the padded ranges its lanes cover, and of the partials."""
    size_o, size_i, size_k = sizes
    padded_i = _cdiv(size_i, plan.block_i) * plan.block_i
    padded_k = size_k + plan.k_per_split + plan.block_k * (plan.unroll + 1)
    spans = [plan.splits * size_o * padded_i + padded_i]
    spans += [(size_o - 1) * so + (padded_i - 1) * si + (padded_k - 1) * sk for so, si, sk in strides]
    return max(spans) <= INT32_MAX


# (device, stream) -> int32 counters, all zero between launches (each launch's last programs
# reset theirs). One set per stream: launches on one stream never overlap.
_ARRIVALS: dict[tuple, torch.Tensor] = {}


def _arrival_counters(device: torch.device, programs: int) -> torch.Tensor | None:
    """Zeroed counters for ``programs`` output tiles of a split launch that finishes in-kernel;
    None (finish in a second launch) where new ones would have to be made during a CUDA graph
    capture, whose memory they must not outlive."""
    stream = torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else None
    key = (device, stream)
    counters = _ARRIVALS.get(key)
    if counters is None or counters.numel() < programs:
        if device.type == "cuda" and torch.cuda.is_current_stream_capturing():
            return None
        counters = _ARRIVALS[key] = torch.zeros(max(programs, 1024), dtype=torch.int32, device=device)
    return counters


class LaunchSpec(NamedTuple):
    """Everything one launch of a plan needs but the tensors' addresses (``_launch_spec``)."""

    grid: tuple[int, int]
    scalars: tuple  # the kernel's arguments after its six tensors: DIM, sizes, strides
    constants: dict  # its constexpr arguments and launch options, FINISH_IN_KERNEL aside
    partial_shape: tuple[int, int, int] | None  # (splits, size_o, size_i) where k is split
    finalize: tuple | None  # the finalize kernel's grid and arguments after its two tensors
    finish_in_kernel: bool  # split, and its last programs add the partials (FINISH_SPLIT_IN_KERNEL)


def _launch_spec(plan: Plan, x, dim, mask, scale, out) -> LaunchSpec:
    """The launch of ``plan`` on validated arguments (mask and scale expanded to x's shape, or
    None), from their shapes, strides and dtypes alone."""
    has_mask, has_scale = mask is not None, scale is not None
    roles = (plan.outer, plan.inner, dim)
    shape, x_stride = x.shape, x.stride()
    size_o, size_i, size_k = shape[plan.outer], shape[plan.inner], shape[dim]
    mask_stride = tuple(mask.stride(d) for d in roles) if has_mask else (0, 0, 0)
    scale_stride = tuple(scale.stride(d) for d in roles) if has_scale else (0, 0, 0)
    fast_dim = _fast_dim(x)
    split = plan.splits > 1
    load_only_kept = SKIP_DROPPED and has_mask and mask.stride(fast_dim) == 0
    programs = size_o * _cdiv(size_i, plan.block_i)
    # Masks applied with fewer selects than one per product (MASK_AFTER_SUM): to the sums, where
    # the mask is constant along k (and loaded once); to the scale, where x is read only where kept.
    mask_sums = MASK_AFTER_SUM and has_mask and mask_stride[2] == 0 and HOIST_CONSTANT_MASK
    skip_select = MASK_AFTER_SUM and load_only_kept and not mask_sums
    x_eviction = X_EVICTION
    if (x.dtype == torch.bfloat16 and fast_dim != dim and size_k > SHORT_K and has_mask
            and 0 not in mask_stride and plan.block_k == 1):
        x_eviction = DENSE_BF16_X_EVICTION
    elif fast_dim != dim and plan.block_k == 1 and split and has_mask and not load_only_kept:
        x_eviction = SPLIT_X_EVICTION
    out_stride = out.stride()
    out_o, out_i = out_stride[plan.outer - (plan.outer > dim)], out_stride[plan.inner - (plan.inner > dim)]
    x_roles = tuple(x_stride[d] for d in roles)
    wide_index = (KEPT_ROWS_WIDE_INDEX and load_only_kept and fast_dim == dim) or not (NARROW_INDEX and _offsets_fit_int32(
        plan, (size_o, size_i, size_k), (x_roles, mask_stride, scale_stride, (out_o, out_i, 0))))
    constants = dict(
        HAS_MASK=has_mask, HAS_SCALE=has_scale,
        LOAD_ONLY_KEPT=load_only_kept,
        PREFETCH_MASK=load_only_kept or (PREFETCH_COLUMNS if fast_dim != dim else PREFETCH_ROWS),
        BROADCAST_MO=has_mask and mask_stride[0] == 0, BROADCAST_MI=has_mask and mask_stride[1] == 0,
        BROADCAST_MK=has_mask and mask_stride[2] == 0,
        BROADCAST_SO=has_scale and scale_stride[0] == 0, BROADCAST_SI=has_scale and scale_stride[1] == 0,
        BROADCAST_SK=has_scale and scale_stride[2] == 0,
        BLOCK_I=plan.block_i, BLOCK_K=plan.block_k, UNROLL=plan.unroll, SPLIT=split,
        X_EVICTION=x_eviction, OPERAND_EVICTION=OPERAND_EVICTION, HOIST_MASK=HOIST_CONSTANT_MASK,
        WIDE_INDEX=wide_index, MASK_SUMS=mask_sums, SELECT_PRODUCTS=has_mask and not (mask_sums or skip_select),
        ZERO_DROPPED_SCALE=has_scale and skip_select,
        # Sizes compiled in: unsplit 2-D and row tiles of large inputs (CONSTANT_SIZES).
        **_size_constants(plan, x, fast_dim != dim, (size_i, size_k)),
        num_warps=plan.num_warps, **({} if NUM_STAGES is None else {"num_stages": NUM_STAGES}),
    )
    scalars = (dim, size_o, size_i, size_k, plan.k_per_split, *x_roles, *mask_stride, *scale_stride, out_o, out_i)
    finalize = ((_cdiv(size_o * size_i, FINALIZE_BLOCK),), (plan.splits, size_o, size_i, out_o, out_i))
    return LaunchSpec((programs, plan.splits), scalars, constants,
                      (plan.splits, size_o, size_i) if split else None, finalize if split else None,
                      split and FINISH_SPLIT_IN_KERNEL and not wide_index)


def _size_constants(plan: Plan, x, reduced_is_slow: bool, sizes) -> dict:
    """SIZE_I and SIZE_K: the sizes for an unsplit 2-D tile (``CONSTANT_SIZES``) or row tile
    (``CONSTANT_ROW_SIZES``) of CONSTANT_SIZES_MIN_ELEMENTS or more, else 0 (read at run time)."""
    tiles = (plan.block_k > 1) if reduced_is_slow else CONSTANT_ROW_SIZES
    if CONSTANT_SIZES and tiles and plan.splits == 1 and x.numel() >= CONSTANT_SIZES_MIN_ELEMENTS:
        return {"SIZE_I": sizes[0], "SIZE_K": sizes[1]}
    return {"SIZE_I": 0, "SIZE_K": 0}


def _run(spec: LaunchSpec, x, mask, scale, out) -> None:
    """Launch ``spec`` on these tensors (mask and scale expanded to x's shape, or None)."""
    partial, arrivals = out, None
    if spec.partial_shape is not None:
        partial = torch.empty(spec.partial_shape, dtype=torch.float32, device=x.device)
        if spec.finish_in_kernel:
            arrivals = _arrival_counters(x.device, spec.grid[0])
    _reduce_kernel[spec.grid](
        x, x if mask is None else mask, x if scale is None else scale, out, partial,
        partial if arrivals is None else arrivals, *spec.scalars,
        FINISH_IN_KERNEL=arrivals is not None, **spec.constants,
    )
    if spec.partial_shape is not None and arrivals is None:
        grid, scalars = spec.finalize
        _finalize_kernel[grid](partial, out, *scalars, BLOCK=FINALIZE_BLOCK, num_warps=4)


def _launch(plan: Plan, x, dim, mask, scale, out) -> None:
    """Run ``plan`` on validated arguments (mask and scale expanded to x's shape, or None)."""
    _run(_launch_spec(plan, x, dim, mask, scale, out), x, mask, scale, out)


# The module's settings (upper-case int, str or None constants): a call's cached launch holds
# only while they keep the values it was planned with (tests and sweeps change them).
_setting_values = operator.itemgetter(*sorted(
    name for name, value in globals().items()
    if name.isupper() and (value is None or isinstance(value, (int, str)))
))
