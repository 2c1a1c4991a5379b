"""Which of the benchmark's rows a sweep variant changes, and which of those rows' tiles no case of
the sweep times. A variant is judged only by its sweep's cases, so one that also changes a tile
that no case runs must not be picked from them: in session 28, ``X_EVICTION='evict_first'`` tied
or led on every case of sweep s27 and made the column tiles (2048 x 1, which s27 has no case of)
19% slower (docs/kernel-benchmarks.md, "Session 28").

Launches are planned on meta tensors, as ``reduce`` plans them, so no GPU is needed.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import benchmarks.reduce_bench as bench  # found through the path above (it imports no torch)


@contextlib.contextmanager
def overridden(module, overrides):
    """Set module constants for the duration of a block."""
    saved = {key: getattr(module, key) for key in overrides}
    try:
        for key, value in overrides.items():
            setattr(module, key, value)
        yield
    finally:
        for key, value in saved.items():
            setattr(module, key, value)


def benchmark_rows(shapes=None, dims=(0, 1, 2), dtypes=None, masks=None) -> list[tuple]:
    """(shape, dim, dtype name, mask kind) of each row: by default reduce_bench.py's full run (72).
    ``dtypes`` are reduce_bench's short names (fp16, bf16)."""
    shapes = shapes or [tuple(int(size) for size in text.split(",")) for text in bench.FULL_SHAPES]
    dtypes = [bench.DTYPES[name] for name in dtypes or bench.DTYPES]
    return [(shape, dim, dtype, mask) for shape in shapes for dim in dims for dtype in dtypes
            for mask in masks or bench.MASKS]


def launch(reduce_module, torch, shape, dim, dtype, mask_kind):
    """(plan, kernel arguments by name, launch options) of ``reduce`` on meta tensors of this row."""
    x, mask, scale = bench.make_inputs(torch, shape, dtype, mask_kind, "meta")
    mask = None if mask is None else mask.expand(x.shape)
    scale = scale.expand(x.shape)
    plan = reduce_module._plan(x, dim, mask)
    out = torch.empty([size for d, size in enumerate(shape) if d != dim], dtype=dtype, device="meta")
    spec = reduce_module._launch_spec(plan, x, dim, mask, scale, out)
    partial = out if spec.partial_shape is None else torch.empty(spec.partial_shape, device="meta")
    arrivals = torch.empty(1, dtype=torch.int32, device="meta") if spec.finish_in_kernel else partial
    tensors = (x, x if mask is None else mask, scale, out, partial, arrivals)
    names = reduce_module._reduce_kernel.arg_names
    arguments = dict(zip(names, (*tensors, *spec.scalars)))
    constants = {**spec.constants, "FINISH_IN_KERNEL": spec.finish_in_kernel}
    options = {key: constants.pop(key) for key in ("num_warps", "num_stages") if key in constants}
    arguments.update(constants)
    return plan, arguments, options


def tile(plan) -> str:
    """The family of a plan's kernel: its tile, warps and unroll, and whether k is split (how many
    splits follows from the shape)."""
    return f"{plan.block_i}x{plan.block_k} w{plan.num_warps} u{plan.unroll} {'split' if plan.splits > 1 else 'whole'}"


def signature(reduce_module, torch, row) -> tuple[str, tuple]:
    """(tile, everything else that the launch compiles in or passes) of a row under the module's
    settings now: two settings that give a row the same signature run it the same way."""
    shape, dim, dtype_name, mask_kind = row
    plan, arguments, options = launch(reduce_module, torch, shape, dim, getattr(torch, dtype_name), mask_kind)
    compiled = tuple(sorted((name, value) for name, value in {**arguments, **options}.items()
                            if not isinstance(value, torch.Tensor)))
    return tile(plan), (plan, compiled)


def unjudged_tiles(reduce_module, torch, overrides: dict, cases, rows, defaults=None) -> dict[str, list[tuple]]:
    """Tile -> the rows of that (default) tile that ``overrides`` changes where no case of that
    tile is changed too, i.e. the changes that the cases' timings say nothing about. Empty: every
    change is timed on some case. ``defaults``: each row's and case's signature under the
    module's settings now, where already known."""
    defaults = {} if defaults is None else defaults
    for row in [*cases, *rows]:
        if row not in defaults:
            defaults[row] = signature(reduce_module, torch, row)

    def changed(row_list):
        found = {}
        with overridden(reduce_module, overrides):
            for row in row_list:
                if signature(reduce_module, torch, row) != defaults[row]:
                    found.setdefault(defaults[row][0], []).append(row)
        return found

    timed = changed(cases)
    return {name: changed_rows for name, changed_rows in changed(rows).items() if name not in timed}


def unjudged_variants(reduce_module, torch, variants: dict, cases, rows=None) -> dict[str, str]:
    """Variant name -> why its cases cannot judge it (the tiles it changes that no case times),
    for each variant that has such a tile."""
    rows = benchmark_rows() if rows is None else rows
    defaults, reasons = {}, {}
    for name, overrides in variants.items():
        tiles = unjudged_tiles(reduce_module, torch, overrides, cases, rows, defaults)
        if tiles:
            counted = ", ".join(f"{tile_name} ({len(found)} rows)" for tile_name, found in sorted(tiles.items()))
            reasons[name] = f"changes tiles that no case times: {counted}"
    return reasons
