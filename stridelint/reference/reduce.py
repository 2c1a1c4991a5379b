"""Masked, scaled sum over one dim of a 3-D tensor: the Triton kernel stridelint is validated on.

Mask and scale may be broadcast (stride 0) views of tensors much smaller than ``x``: the wrapper
expands them without copying and the kernel loads each distinct value once per tile instead of
once per element.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

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

# Tile shapes measured on an H200 (benchmarks/reduce_bench.py). When x is contiguous along the
# reduced dim, many small programs of one 2048-element row each keep HBM busiest.
ROW_TILE = 2048
# Otherwise, while the reduced dim is at most ONE_ROW_MAX_K long and there are programs enough
# to fill the GPU, a program sums ONE_ROW_COLUMNS contiguous columns one reduced row at a time:
# x, mask and scale then share one register layout (a 2-D tile gives a 1-byte mask and 2-byte x
# different vector widths, and the layout conversion cost up to 5x: benchmarks/tile_sweep.py).
ONE_ROW_COLUMNS = 1024
ONE_ROW_MAX_K = 256
ONE_ROW_MIN_PROGRAMS = 1024
# Else INNER_BLOCK contiguous columns over strided rows, 128 x 128 when the reduced dim is long;
# a short one widens the columns (up to MAX_COLUMNS) to keep tiles full.
COLUMN_TILE = 16384
INNER_BLOCK = 128
MAX_COLUMNS = 1024


@triton.jit
def _load_operand(ptr, o, i, k, i_ok, k_ok, stride_o, stride_i, stride_k,
                  BROADCAST_O: tl.constexpr, BROADCAST_I: tl.constexpr, BROADCAST_K: tl.constexpr):
    """Load the mask or scale values that go with x's [BLOCK_I, BLOCK_K] tile. A broadcast dim
    adds no offset term and keeps size 1 in the result, so each distinct value is loaded once
    (semantics §0 rule 1); the result broadcasts against x's tile."""
    if not BROADCAST_O:
        ptr += o * stride_o
    if BROADCAST_I and BROADCAST_K:
        tile = tl.load(ptr + tl.zeros((1, 1), dtype=tl.int32))
    elif BROADCAST_K:
        tile = tl.load(ptr + i * stride_i, mask=i_ok)[:, None]
    elif BROADCAST_I:
        tile = tl.load(ptr + k * stride_k, mask=k_ok)[None, :]
    else:
        tile = tl.load(ptr + i[:, None] * stride_i + k[None, :] * stride_k, mask=i_ok[:, None] & k_ok[None, :])
    return tile


@triton.jit(launch_metadata=reduce_launch_metadata)
def _reduce_kernel(
    X, Mask, Scale, Y, DIM,
    size_o, size_i, size_k,
    stride_xo, stride_xi, stride_xk,
    stride_mo, stride_mi, stride_mk,
    stride_so, stride_si, stride_sk,
    stride_yo, stride_yi,
    HAS_MASK: tl.constexpr, HAS_SCALE: tl.constexpr, LOAD_ONLY_KEPT: tl.constexpr,
    BROADCAST_MO: tl.constexpr, BROADCAST_MI: tl.constexpr, BROADCAST_MK: tl.constexpr,
    BROADCAST_SO: tl.constexpr, BROADCAST_SI: tl.constexpr, BROADCAST_SK: tl.constexpr,
    BLOCK_I: tl.constexpr, BLOCK_K: tl.constexpr,
):
    """Y[o, i] = sum over k of X[o, i, k] * Scale[o, i, k] where Mask[o, i, k] != 0.

    o, i, k name the outer kept dim, the inner kept dim and the reduced dim; each program sums
    BLOCK_I outputs of one o. ``DIM`` is the reduced dim in the tensors' own order: the kernel
    never reads it, the launch-metadata hook does (with ``Mask``, which keeps that order too).
    LOAD_ONLY_KEPT: x is read only where the mask keeps it. Set when the mask is constant along
    x's contiguous axis, where it keeps or drops whole vector loads; a mask that varies along
    that axis would split them into scalar loads, so x is then read whole (its memory sectors
    are fetched anyway).
    """
    pid = tl.program_id(0)
    i_blocks = tl.cdiv(size_i, BLOCK_I)
    o = (pid // i_blocks).to(tl.int64)
    i = (pid % i_blocks).to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I)
    i_ok = i < size_i
    acc = tl.zeros((BLOCK_I, BLOCK_K), dtype=tl.float32)
    for k_start in range(0, size_k, BLOCK_K):
        k = k_start + tl.arange(0, BLOCK_K).to(tl.int64)
        k_ok = k < size_k
        in_bounds = i_ok[:, None] & k_ok[None, :]
        keep = in_bounds
        if HAS_MASK:
            mask = _load_operand(Mask, o, i, k, i_ok, k_ok, stride_mo, stride_mi, stride_mk,
                                 BROADCAST_MO, BROADCAST_MI, BROADCAST_MK)
            keep = in_bounds & (mask != 0)
        x_offsets = o * stride_xo + i[:, None] * stride_xi + k[None, :] * stride_xk
        x = tl.load(X + x_offsets, mask=keep if LOAD_ONLY_KEPT else in_bounds, other=0.0).to(tl.float32)
        if HAS_SCALE:
            scale = _load_operand(Scale, o, i, k, i_ok, k_ok, stride_so, stride_si, stride_sk,
                                  BROADCAST_SO, BROADCAST_SI, BROADCAST_SK)
            x *= scale.to(tl.float32)
        # Masked-out products are dropped, not added as 0 * value: an inf or NaN there must not leak.
        acc += tl.where(keep, x, 0.0)
    y_offsets = o * stride_yo + i * stride_yi
    tl.store(Y + y_offsets, tl.sum(acc, axis=1).to(Y.dtype.element_ty), mask=i_ok)


def _tile_shape(size_o: int, size_i: int, size_k: int, reduced_is_fast: bool) -> tuple[int, int, int]:
    """(BLOCK_I, BLOCK_K, num_warps): the tile's long side runs along x's contiguous axis, so
    loads coalesce whether or not that axis is the reduced one."""
    programs_one_row = size_o * triton.cdiv(size_i, ONE_ROW_COLUMNS)
    size_i, size_k = triton.next_power_of_2(max(size_i, 1)), triton.next_power_of_2(max(size_k, 1))
    if reduced_is_fast:
        block_k = min(size_k, ROW_TILE)
        return min(size_i, ROW_TILE // block_k), block_k, 4
    if size_k <= ONE_ROW_MAX_K and programs_one_row >= ONE_ROW_MIN_PROGRAMS:
        return min(size_i, ONE_ROW_COLUMNS), 1, 4
    block_k = min(size_k, COLUMN_TILE // INNER_BLOCK)
    block_i = min(size_i, COLUMN_TILE // block_k, MAX_COLUMNS)
    # 8 warps pay off only on full tiles; on a reduced dim of 4 they were 3x slower than 4.
    return block_i, block_k, 8 if block_i * block_k >= COLUMN_TILE else 4


def _roles(x: torch.Tensor, dim: int) -> tuple[tuple[int, int, int], int]:
    """((outer, inner, reduced) dims of x, x's contiguous dim). k is the reduced dim; i is the
    kept dim the tile spans, the contiguous one unless x is contiguous along k, in which case
    the larger kept dim fills the tile best."""
    kept_dims = [d for d in range(3) if d != dim]
    fast_dim = min(range(3), key=lambda d: (x.shape[d] == 1, x.stride(d)))
    inner = fast_dim if fast_dim != dim else max(kept_dims, key=lambda d: x.shape[d])
    outer = kept_dims[0] if kept_dims[1] == inner else kept_dims[1]
    return (outer, inner, dim), fast_dim


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


def _broadcast_flags(operand: torch.Tensor, dims) -> tuple[bool, ...]:
    """Per dim in ``dims``: True where the operand repeats one value (stride 0)."""
    return tuple(operand.stride(d) == 0 for d in dims)


def reduce(x, dim, mask=None, scale=None, *, out=None, out_dtype=None):
    """Sum over ``dim`` of ``x * scale`` where ``mask != 0``, accumulated in fp32.

    ``x`` is a 3-D fp16, bf16 or fp32 tensor with any strides. ``mask`` (bool or integer) and
    ``scale`` (floating point) may have any shape broadcastable to ``x``; they are expanded
    without copying, so a mask broadcast over a large dim costs only its storage. The result
    has ``x.shape`` without ``dim`` and dtype ``out_dtype`` (default ``x.dtype``); it is
    written to ``out`` when given. Raises ValueError on invalid inputs.
    """
    if x.ndim != 3:
        raise ValueError(f"x must be 3-D, got shape {tuple(x.shape)}")
    if x.dtype not in X_DTYPES:
        raise ValueError(f"x must be float16, bfloat16 or float32, got {x.dtype}")
    if not -3 <= dim < 3:
        raise ValueError(f"dim {dim} is out of range for a 3-D x")
    dim %= 3
    kept_dims = [d for d in range(3) if d != dim]
    out_shape = tuple(x.shape[d] for d in kept_dims)
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
    has_mask, has_scale = mask is not None, scale is not None
    mask = _expand_operand("mask", mask, x, MASK_DTYPES, "bool or an integer dtype") if has_mask else x
    scale = _expand_operand("scale", scale, x, SCALE_DTYPES, "a floating-point dtype") if has_scale else x
    if out.numel() == 0:
        return out

    roles, fast_dim = _roles(x, dim)
    outer, inner, _ = roles
    block_i, block_k, num_warps = _tile_shape(*(x.shape[d] for d in roles), fast_dim == dim)
    mask_broadcast = _broadcast_flags(mask, roles)
    scale_broadcast = _broadcast_flags(scale, roles)
    grid = (x.shape[outer] * triton.cdiv(x.shape[inner], block_i),)
    _reduce_kernel[grid](
        x, mask, scale, out, dim,
        *(x.shape[d] for d in roles),
        *(x.stride(d) for d in roles),
        *(mask.stride(d) for d in roles),
        *(scale.stride(d) for d in roles),
        out.stride(kept_dims.index(outer)), out.stride(kept_dims.index(inner)),
        HAS_MASK=has_mask, HAS_SCALE=has_scale, LOAD_ONLY_KEPT=not has_mask or mask.stride(fast_dim) == 0,
        BROADCAST_MO=mask_broadcast[0], BROADCAST_MI=mask_broadcast[1], BROADCAST_MK=mask_broadcast[2],
        BROADCAST_SO=scale_broadcast[0], BROADCAST_SI=scale_broadcast[1], BROADCAST_SK=scale_broadcast[2],
        BLOCK_I=block_i, BLOCK_K=block_k, num_warps=num_warps,
    )
    return out
