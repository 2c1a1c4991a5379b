"""Kept elements and kept rows of a mask, counted exactly in one Triton launch (needs triton).

The launch-metadata hook runs on the host before every profiled launch, so its cost is its
launches: counting in torch takes a few launches per slab of the mask (each op makes a
temporary, and an int64 one would cost 8x the storage of a bool mask). This kernel reads the
mask once, in place, and adds each program's counts into a 2-element int64 output with
atomics: one fill and one launch, no temporary beyond the output. A reduced dim long enough to
be split across programs also takes one int64 flag per row, so that the row is counted once.

The counts are returned already combined, ``weights[j][0] * kept + weights[j][1] * kept_rows +
weights[j][2]`` for j = 0, 1, so the caller needs no further launch. Launch hooks see this
launch like any other (Proton skips launches made while it evaluates metadata).
"""

import torch
import triton
import triton.language as tl

# Elements a tile holds (BLOCK_ROWS rows of BLOCK_K), and how many tiles along k a program adds
# before the rows are split across programs.
TILE = 4096
TILES_PER_PROGRAM = 4
MAX_DIMS = 4  # the reduced dim and up to three others


@triton.jit
def _kept_counts_kernel(
    Mask, Out,
    rows, k_size, k_chunk, size1, size2,
    stride0, stride1, stride2, stride_k,
    kept_weight0, row_weight0, constant0, kept_weight1, row_weight1, constant1,
    splits,
    BLOCK_ROWS: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT: tl.constexpr,
):
    pid = tl.program_id(0)
    row_block = pid // splits
    k_part = pid % splits
    row = row_block.to(tl.int64) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    live = row < rows
    i2 = row % size2
    i1 = (row // size2) % size1
    i0 = row // size2 // size1
    row_offset = i0 * stride0 + i1 * stride1 + i2 * stride2
    k_lo = k_part.to(tl.int64) * k_chunk
    k_hi = tl.minimum(k_lo + k_chunk, k_size)
    count = tl.zeros((BLOCK_ROWS,), dtype=tl.int32)  # at most k_chunk < 2**31 a row
    for k_start in range(k_lo, k_hi, BLOCK_K):
        k = k_start + tl.arange(0, BLOCK_K)
        values = tl.load(
            Mask + row_offset[:, None] + k[None, :] * stride_k,
            mask=live[:, None] & (k < k_hi)[None, :],
            other=0,
        )
        count += tl.sum((values != 0).to(tl.int32), axis=1)
    has_kept = count > 0
    if SPLIT:
        # Only the first program to flag a row counts it (the flags follow the 2 outputs).
        previous = tl.atomic_max(Out + 2 + row, tl.full((BLOCK_ROWS,), 1, tl.int64), mask=has_kept)
        has_kept = has_kept & (previous == 0)
    kept = tl.sum(count.to(tl.int64), axis=0)
    kept_rows = tl.sum(has_kept.to(tl.int64), axis=0)
    first = (pid == 0).to(tl.int64)
    tl.atomic_add(Out, kept * kept_weight0 + kept_rows * row_weight0 + first * constant0)
    tl.atomic_add(Out + 1, kept * kept_weight1 + kept_rows * row_weight1 + first * constant1)


def weighted_kept_counts(mask, dim, weights):
    """``(a, b)``: for each ``(w_kept, w_rows, constant)`` of ``weights`` (two of them), ``w_kept
    * kept + w_rows * kept_rows + constant`` as an int64 0-d tensor on the mask's device, where
    ``kept`` counts the nonzero elements of ``mask`` and ``kept_rows`` the rows along ``dim``
    that hold one. ``mask`` has at most MAX_DIMS dims; no host sync."""
    shape, strides = mask.shape, mask.stride()
    others = sorted(
        ((shape[d], strides[d]) for d in range(mask.dim()) if d != dim),
        key=lambda size_stride: -size_stride[1],  # the smallest stride varies fastest
    )
    others = [(1, 0)] * (MAX_DIMS - 1 - len(others)) + others
    (size0, stride0), (size1, stride1), (size2, stride2) = others
    k_size, stride_k = (shape[dim], strides[dim]) if mask.dim() else (1, 0)
    rows = size0 * size1 * size2
    # Plain integer arithmetic: triton.cdiv and next_power_of_2 cost microseconds a call, and
    # the hook's time is its host time.
    block_k = min(1 << max(k_size - 1, 0).bit_length(), TILE)
    block_rows = TILE // block_k
    k_chunk = block_k * TILES_PER_PROGRAM
    splits = max(1, -(-k_size // k_chunk))
    if splits == 1:
        k_chunk = max(k_size, 1)
    out = torch.zeros(2 + (rows if splits > 1 else 0), dtype=torch.int64, device=mask.device)
    (kept0, rows0, constant0), (kept1, rows1, constant1) = weights
    grid = (-(-rows // block_rows) * splits or 1,)
    _kept_counts_kernel[grid](
        mask, out,
        rows, k_size, k_chunk, max(size1, 1), max(size2, 1),
        stride0, stride1, stride2, stride_k,
        kept0, rows0, constant0, kept1, rows1, constant1,
        splits,
        BLOCK_ROWS=block_rows, BLOCK_K=block_k, SPLIT=splits > 1,
    )
    return (out if splits == 1 else out[:2]).unbind()
