"""Probe: does a list of kept rows, built once per launch, speed up 2-D tiles under a mask
that drops whole rows of x (a mask over N reduced over B or M)?

    python benchmarks/kept_rows_probe.py            # on a CUDA device

A first launch writes, for each mask row, the indices along the reduced dim that the mask
keeps (in order) and their count; the reduce then loads only full tiles of kept rows, so no
load in its loop is partly masked off. Printed: the shipped ``reduce`` against the probe (both
launches, and the reduce launch alone), µs and share of copy bandwidth, and whether the sums
agree.
"""

from __future__ import annotations

import functools
import importlib

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

reduce_module = importlib.import_module("stridelint.reference.reduce")


@triton.jit
def _kept_rows_kernel(Mask, Rows, Counts, size_k, stride_mo, stride_mk, BLOCK: tl.constexpr):
    """Rows[o, :Counts[o]] = the k where Mask[o, k] != 0, in order."""
    o = tl.program_id(0)
    base = o * 0
    for k0 in range(0, size_k, BLOCK):
        k = k0 + tl.arange(0, BLOCK)
        keep = tl.load(Mask + o * stride_mo + k * stride_mk, mask=k < size_k, other=0) != 0
        kept = keep.to(tl.int32)
        tl.store(Rows + o * size_k + base + tl.cumsum(kept, 0) - 1, k, mask=keep)
        base += tl.sum(kept, 0)
    tl.store(Counts + o, base)


@triton.jit
def _kept_rows_reduce_kernel(X, Scale, Rows, Counts, Y, size_i, size_k,
                             stride_xo, stride_xi, stride_xk, stride_so, stride_sk, stride_yo, stride_yi,
                             MASK_O: tl.constexpr, BLOCK_I: tl.constexpr, BLOCK_K: tl.constexpr,
                             UNROLL: tl.constexpr):
    pid = tl.program_id(0)
    i_blocks = tl.cdiv(size_i, BLOCK_I)
    o = pid // i_blocks
    i = (pid % i_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    i_ok = i < size_i
    row = o if MASK_O else 0
    count = tl.load(Counts + row)
    rows = Rows + row * size_k
    acc = tl.zeros((BLOCK_I, BLOCK_K), dtype=tl.float32)
    for j0 in range(0, count, BLOCK_K * UNROLL):
        for u in tl.static_range(UNROLL):
            j = j0 + u * BLOCK_K + tl.arange(0, BLOCK_K)
            j_ok = j < count
            k = tl.load(rows + j, mask=j_ok, other=0)
            x = tl.load(X + o * stride_xo + i[:, None] * stride_xi + k[None, :] * stride_xk,
                        mask=i_ok[:, None] & j_ok[None, :], other=0.0).to(tl.float32)
            s = tl.load(Scale + o * stride_so + k * stride_sk, mask=j_ok, other=0.0).to(tl.float32)
            acc += x * s[None, :]
    tl.store(Y + o * stride_yo + i * stride_yi, tl.sum(acc, axis=1).to(Y.dtype.element_ty), mask=i_ok)


def probe(x, dim, mask, scale, block_i, block_k, warps, unroll, rows=None, counts=None, prepass=True):
    (outer, inner, _), _ = reduce_module._roles(x, dim, mask)
    size_o, size_i, size_k = x.shape[outer], x.shape[inner], x.shape[dim]
    mask_o = mask.stride(outer) != 0
    size_mo = size_o if mask_o else 1
    if rows is None:
        rows = torch.empty((size_mo, size_k), dtype=torch.int32, device=x.device)
        counts = torch.empty(size_mo, dtype=torch.int32, device=x.device)
    if prepass:
        _kept_rows_kernel[(size_mo,)](mask, rows, counts, size_k, mask.stride(outer), mask.stride(dim),
                                      BLOCK=min(triton.next_power_of_2(size_k), 8192), num_warps=8)
    out_shape = tuple(x.shape[d] for d in range(3) if d != dim)
    y = torch.empty(out_shape, dtype=x.dtype, device=x.device)
    ys = y.stride()
    out_o, out_i = ys[outer - (outer > dim)], ys[inner - (inner > dim)]
    grid = (size_o * triton.cdiv(size_i, block_i),)
    _kept_rows_reduce_kernel[grid](x, scale, rows, counts, y, size_i, size_k,
                                   x.stride(outer), x.stride(inner), x.stride(dim),
                                   scale.stride(outer), scale.stride(dim), out_o, out_i,
                                   MASK_O=mask_o, BLOCK_I=block_i, BLOCK_K=block_k, UNROLL=unroll,
                                   num_warps=warps)
    return y, rows, counts


def main() -> None:
    torch.manual_seed(0)
    dev = "cuda"
    src = torch.empty(2**31, dtype=torch.uint8, device=dev)
    copy = 2 * src.numel() / (do_bench(functools.partial(torch.empty_like(src).copy_, src), rep=200) * 1e-3)
    del src
    print(f"copy bandwidth {copy / 1e9:.0f} GB/s")
    cases = [((8192, 4, 8192), 0), ((4, 8192, 8192), 1)]
    variants = [(64, 64, 16, 1), (64, 64, 16, 2), (64, 32, 8, 2), (128, 32, 16, 2), (64, 128, 16, 1),
                (32, 64, 8, 2)]
    for shape, dim in cases:
        for dtype in (torch.float16, torch.bfloat16):
            x = torch.randn(shape, dtype=dtype, device=dev)
            kept = torch.rand(shape[0], shape[1], 1, device=dev) < 0.75  # one flag a row of x
            mask = kept.expand(shape)
            scale = torch.rand(shape[0], shape[1], 1, device=dev).expand(shape)
            moved = (x.nbytes * kept.float().mean().item() + mask.untyped_storage().nbytes()
                     + scale.untyped_storage().nbytes() + x.nbytes // shape[dim])
            want = reduce_module.reduce(x, dim, mask, scale)
            line = [f"{'x'.join(map(str, shape))} dim {dim} {str(dtype)[6:]}"]
            t = do_bench(functools.partial(reduce_module.reduce, x, dim, mask, scale), rep=200) * 1e3
            line.append(f"shipped {t:.0f}us {moved / (t * 1e-6) / copy:.0%}")
            for bi, bk, w, u in variants:
                got, rows, counts = probe(x, dim, mask, scale, bi, bk, w, u)
                ok = torch.allclose(got.float(), want.float(), rtol=2e-2, atol=2e-2)
                run = functools.partial(probe, x, dim, mask, scale, bi, bk, w, u, rows, counts)
                both = do_bench(run, rep=200) * 1e3
                alone = do_bench(functools.partial(run, prepass=False), rep=200) * 1e3
                line.append(f"{bi}x{bk}w{w}u{u} {both:.0f}us {moved / (both * 1e-6) / copy:.0%} "
                            f"(alone {alone:.0f}){'' if ok else ' MISMATCH'}")
            print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
