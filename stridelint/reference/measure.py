"""Measurements behind stridelint's claims about the reference kernel and its hook.

Used by the demo command, the benchmark and the tests: peak memory and time of the naive and
the shipped launch-metadata counting on a broadcast mask, and the kernel against PyTorch.
"""

from __future__ import annotations

import math
import statistics
import time
from types import SimpleNamespace

import torch
from torch._C._profiler import _EventType

from stridelint.reference.metadata import reduce_launch_metadata
from stridelint.reference.reduce import reduce

# A mask broadcast over the last dim of (B, 4, 8192): the benchmark's (65536, 4, 8192) shape.
_MASK_ROWS_PER_BATCH = 4
_BROADCAST_SIZE = 8192


def _naive_counts(mask, dim):
    """Loads and adds counted as the hook was first written (PR #10776's "before").

    The comparison materializes the mask at its logical size: that is the baseline the fix is
    measured against. (No finding here: nothing in this module says `mask` is broadcast.)
    """
    kept = mask != 0
    return kept.sum(), (kept.sum(dim=dim) - 1).clamp(min=0).sum()


def _pr_style_counts(mask, dim):
    """Loads and adds counted as PR #10776 fixed it for a 3-D mask: narrow each broadcast dim,
    count on the small tensor, multiply by the repeat counts."""
    dim %= mask.ndim
    reps = [size if stride == 0 and size > 1 else 1 for size, stride in zip(mask.shape, mask.stride())]
    for d, rep in enumerate(reps):
        if rep > 1:
            mask = mask.narrow(d, 0, 1)
    kept = mask != 0
    loads = kept.sum() * math.prod(reps)
    kept_per_row = kept.sum(dim=dim) * reps[dim]
    adds = (kept_per_row - 1).clamp(min=0).sum() * math.prod(rep for d, rep in enumerate(reps) if d != dim)
    return loads, adds


def _peak_live_bytes(prof) -> int:
    """Largest running total of the allocator events a CPU profile recorded (semantics §1.5):
    internal temporaries count too, which tracemalloc cannot see."""
    def walk(events):
        for event in events:
            yield event
            yield from walk(event.children)

    allocations = [
        event for event in walk(prof.profiler.kineto_results.experimental_event_tree())
        if event.tag == _EventType.Allocation
    ]
    live = peak = 0
    for event in sorted(allocations, key=lambda event: event.start_time_ns):
        live += event.extra_fields.alloc_size
        peak = max(peak, live)
    return peak


def peak_memory(fn, device: str):
    """Run ``fn`` once; return its result and the most bytes it held beyond what was live."""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        result = fn()
        torch.cuda.synchronize(device)
        return result, torch.cuda.max_memory_allocated(device) - before
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities, profile_memory=True) as prof:
        result = fn()
    return result, _peak_live_bytes(prof)


def median_seconds(fn, device: str, repeats: int = 5) -> float:
    """Median wall time of ``fn`` over ``repeats`` runs after one warm-up, device work included."""
    is_cuda = torch.device(device).type == "cuda"
    fn()
    times = []
    for _ in range(repeats):
        if is_cuda:
            torch.cuda.synchronize(device)
        start = time.perf_counter()
        fn()
        if is_cuda:
            torch.cuda.synchronize(device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def broadcast_mask(logical_elements: int, device: str, mask_dtype=torch.int32) -> torch.Tensor:
    """A random (B, 4, 8192) mask broadcast over its last dim, with about ``logical_elements``
    logical elements and only B * 4 stored ones."""
    batch = max(1, logical_elements // (_MASK_ROWS_PER_BATCH * _BROADCAST_SIZE))
    stored = torch.randint(0, 3, (batch, _MASK_ROWS_PER_BATCH, 1), device=device).to(mask_dtype)
    return stored.expand(batch, _MASK_ROWS_PER_BATCH, _BROADCAST_SIZE)


def compare_hooks(
    logical_elements: int, device: str, mask_dtype=torch.int32, *, dim: int = 2, repeats: int = 5
) -> dict:
    """Peak extra memory, median time and values of the naive, the PR-style and the shipped
    counting on a broadcast mask. The shipped hook runs whole: its counting is its only cost."""
    mask = broadcast_mask(logical_elements, device, mask_dtype)
    out_shape = [size for d, size in enumerate(mask.shape) if d != dim % 3]
    # The hook reads only the shapes and dtypes of X and Y: zero-copy placeholders will do.
    x = torch.empty((), dtype=torch.float16, device=device).expand(mask.shape)
    y = torch.empty((), dtype=torch.float16, device=device).expand(out_shape)
    args = {"X": x, "Y": y, "Mask": mask, "Scale": x, "DIM": dim, "HAS_MASK": True, "HAS_SCALE": False}
    variants = {
        "naive": lambda: _naive_counts(mask, dim),
        "pr_style": lambda: _pr_style_counts(mask, dim),
        "shipped": lambda: reduce_launch_metadata((1,), SimpleNamespace(name="reduce"), args),
    }
    report = {
        "shape": list(mask.shape),
        "dim": dim,
        "mask_dtype": str(mask_dtype).removeprefix("torch."),
        "logical_elements": mask.numel(),
        "mask_storage_bytes": mask.untyped_storage().nbytes(),
    }
    values = {}
    for name, fn in variants.items():
        values[name], peak_bytes = peak_memory(fn, device)
        report[name] = {"peak_bytes": peak_bytes, "seconds": median_seconds(fn, device, repeats)}
    loads, adds = (int(count) for count in values["naive"])
    shipped = values["shipped"]
    report["loads"], report["adds"] = loads, adds
    report["equal"] = (
        [int(count) for count in values["pr_style"]] == [loads, adds]
        and int(shipped["flops32"]) == adds
        and int(shipped["bytes"]) == loads * x.element_size() + y.numel() * y.element_size()
    )
    return report


def reference_reduce(x, dim, mask=None, scale=None, out_dtype=None):
    """What ``reduce`` computes, in PyTorch: fp32 accumulation, one rounding at the end."""
    values = x.float() if scale is None else x.float() * scale
    if mask is not None:
        values = values.masked_fill(mask == 0, 0)
    return values.sum(dim).to(out_dtype or x.dtype)


def check_kernel(device: str, seed: int = 0) -> dict:
    """Run ``reduce`` on a few small random cases against ``reference_reduce``; report the
    largest error relative to the output's magnitude and whether every case is within fp16
    rounding."""
    generator = torch.Generator(device="cpu").manual_seed(seed)
    shape = (5, 6, 7)
    x = torch.randn(shape, generator=generator).to(device=device, dtype=torch.float16)
    dense_mask = torch.randint(0, 2, shape, generator=generator).to(device)
    row_mask = torch.randint(0, 2, (5, 6, 1), generator=generator).to(device).bool()
    column_scale = torch.rand(7, generator=generator).to(device)
    cases = [
        (x, dim, mask, scale)
        for dim in (0, 1, -1)
        for mask, scale in ((None, None), (dense_mask, None), (row_mask, column_scale))
    ]
    cases.append((x.permute(2, 0, 1), 1, None, column_scale[:, None, None]))
    max_error = 0.0
    for x_case, dim, mask, scale in cases:
        expected = reference_reduce(x_case, dim, mask, scale).float()
        error = (reduce(x_case, dim, mask, scale).float() - expected).abs().max().item()
        max_error = max(max_error, error / max(1.0, expected.abs().max().item()))
    return {"cases": len(cases), "max_relative_error": max_error, "passed": max_error <= 2e-3}
