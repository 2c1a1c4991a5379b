"""Launch metadata of the reference reduce kernel: what Proton records for each launch.

The counts use narrow-and-rescale (semantics §0, §4.1): a mask broadcast over a large dim costs
memory and time proportional to its storage, not its logical size. `stridelint fix` applied to
the naive form (fixes/SL101/reference_hook.before.py) gives the same numbers within 1.5x the
mask's storage too (1.25-1.38x for a bool mask on the H200), counting the narrowed mask in int32
sixteenths off the CPU and never making per-row counts, but in some 150 small launches: 1.5-2
ms a call (docs/kernel-benchmarks.md, session 8). This hook counts the kept elements and kept rows
of the narrowed mask exactly, with no temporary of the mask's size: on a CUDA device in one
Triton launch that reads the mask in place (kept_counts.py; the hook's time is its launches),
elsewhere in torch, a slab of the narrowed mask at a time, in int32 (exact within a slab), so
that its temporaries stay within TEMPORARY_BUDGET times the mask's own storage. A test keeps
the numbers equal to the naive hook's.
"""

import math

import torch

from stridelint.reference.kept_counts import MAX_DIMS, weighted_kept_counts

# Devices whose masks are counted by the Triton kernel (kept_counts.py); tests add "cpu" under
# Triton's interpreter.
KERNEL_DEVICE_TYPES = ("cuda",)

# Counting in torch (off CUDA, or a mask of more than kept_counts.MAX_DIMS dims): elements of
# the narrowed mask counted per step, as many as keep the step's temporaries under
# TEMPORARY_BUDGET times the mask's storage: an int32 copy of the step (4 bytes an element), and
# for a non-bool mask its bool copy first (1 more). Fewer, larger steps launch fewer kernels
# (on the H200, 6-7 steps of 3 launches each took 0.25-0.39 ms on a 256 KiB bool mask). Never
# fewer than MIN_SLAB_ELEMENTS a step.
TEMPORARY_BUDGET = 1.2
MIN_SLAB_ELEMENTS = 4096
MAX_SLAB_ELEMENTS = 2**30  # int32 counts of a slab stay exact


def slab_elements(mask) -> int:
    """Elements counted per step for ``mask`` (see TEMPORARY_BUDGET)."""
    storage = mask.numel() * mask.element_size()
    per_element = 4 if mask.dtype == torch.bool else 5
    return min(max(MIN_SLAB_ELEMENTS, int(storage * TEMPORARY_BUDGET) // per_element), MAX_SLAB_ELEMENTS)


def _narrow_broadcast(*tensors):
    """Narrow to size 1 every dim along which all tensor operands repeat one value (stride 0,
    size > 1), without copying; return the narrowed operands and each dim's repeat count."""
    shaped = [t for t in tensors if isinstance(t, torch.Tensor) and t.dim() > 0]
    expanded = torch.broadcast_tensors(*shaped) if len(shaped) > 1 else shaped  # one: as it is
    shape = expanded[0].shape if expanded else ()
    reps = tuple(
        n if n > 1 and all(t.stride(d) == 0 for t in expanded) else 1
        for d, n in enumerate(shape)
    )
    views = iter(expanded)
    narrowed = []
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.dim() > 0:
            t = next(views)
            for d, r in enumerate(reps):
                if r > 1:
                    t = t.narrow(d, 0, 1)
        narrowed.append(t)
    return (*narrowed, reps)


def _repeats(reps, dim, reduces_all_when_empty=True):
    """How many copies of each narrowed element a reduction over `dim` counts (`dim` an int,
    a sequence of ints, or None). None reduces every dim, and so does an empty sequence,
    except for `any` and `all`, which then reduce none (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return math.prod(reps)
    return math.prod(reps[d] for d in dims) if reps else 1


def _slabs(rows, limit):
    """Views that cover ``rows`` (rows along its last dim) once, each of at most ``limit``
    elements or else a single row; split along the other dims, largest first."""
    if rows.numel() <= limit or rows.numel() == rows.shape[-1]:
        yield rows
        return
    d = max(range(rows.dim() - 1), key=lambda d: rows.shape[d])
    step = max(1, limit // (rows.numel() // rows.shape[d]))
    for start in range(0, rows.shape[d], step):
        yield from _slabs(rows.narrow(d, start, min(step, rows.shape[d] - start)), limit)


def _nonzero_count(t):
    """Exact count of the nonzero elements of ``t`` as an int32 0-d tensor (t must hold fewer
    than 2**31 elements). A bool ``t`` is summed as is; ``sum`` still converts it to int32,
    half what its default int64 costs."""
    return (t if t.dtype == torch.bool else t != 0).sum(dtype=torch.int32)


def _count_kept(mask, dim, limit):
    """(elements of ``mask`` that are nonzero, rows along ``dim`` that hold one), exactly, as
    int64 0-d tensors on the mask's device, without a temporary of more than ``limit``
    elements (5 bytes each). Each step's int32 counts are kept apart and added once at the end
    (in int64), so a step costs one or two kernel launches."""
    if mask.numel() == 0:
        zero = torch.zeros((), dtype=torch.int64, device=mask.device)
        return zero, zero.clone()
    kept, kept_rows = [], []
    rows = mask.movedim(dim, -1)
    for slab in _slabs(rows, limit):
        if slab.numel() <= limit:
            count = _nonzero_count(slab)
            kept.append(count)
            # A row of one element holds a kept one exactly when that element is kept.
            kept_rows.append(_nonzero_count(slab.any(dim=-1)) if slab.shape[-1] > 1 else count)
            continue
        row_has_kept = torch.zeros((), dtype=torch.bool, device=mask.device)  # one long row
        for start in range(0, slab.numel(), limit):
            piece = slab.reshape(-1).narrow(0, start, min(limit, slab.numel() - start))
            kept.append(_nonzero_count(piece))
            row_has_kept |= piece.any()
        kept_rows.append(row_has_kept.to(torch.int32))
    total = _total(kept)
    # Rows of one element: the same counts, added once.
    same = len(kept) == len(kept_rows) and all(a is b for a, b in zip(kept, kept_rows))
    return total, (total if same else _total(kept_rows))


def _total(counts):
    """The int64 sum of a list of int32 0-d counts."""
    if len(counts) == 1:
        return counts[0].to(torch.int64)
    return torch.stack(counts).sum(dtype=torch.int64)


def reduce_launch_metadata(grid, kernel, args):
    """Name, additions and bytes of one reduce launch, for Proton's roofline.

    ``Mask`` may be a broadcast (stride-0) view: the wrapper expands lower-rank masks.
    ``flops32`` counts the fp32 additions a masked sum performs: per output element, one less
    than the number of kept (``mask != 0``) elements along ``DIM``, that is the kept elements
    less the rows that hold one. ``bytes`` counts the x and scale elements loaded where the mask
    keeps them plus the output written; mask reads are not counted. With a mask the counts are
    0-d tensors on the mask's device, so no host sync (semantics §6), and the temporaries stay
    under the mask's storage (narrow-and-rescale, then counted in one launch, or in slabs).
    """
    x, y = args["X"], args["Y"]
    dim = args["DIM"] % x.ndim
    loaded_bytes = x.element_size() + (args["Scale"].element_size() if args["HAS_SCALE"] else 0)
    out_bytes = y.numel() * y.element_size()
    if args["HAS_MASK"]:
        mask_small, mask_reps = _narrow_broadcast(args["Mask"])
        # A narrowed element stands for every_rep logical ones; a narrowed row along DIM for
        # row_rep logical rows of reps[dim] times its kept elements each:
        # adds = loads - kept rows = kept * every_rep - kept_rows * row_rep.
        every_rep = math.prod(mask_reps)
        row_rep = every_rep // _repeats(mask_reps, dim)
        if mask_small.device.type in KERNEL_DEVICE_TYPES and mask_small.dim() <= MAX_DIMS:
            adds, total_bytes = weighted_kept_counts(
                mask_small, dim, ((every_rep, -row_rep, 0), (every_rep * loaded_bytes, 0, out_bytes))
            )
        else:
            kept, kept_rows = _count_kept(mask_small, dim, slab_elements(mask_small))
            loads = kept * every_rep
            adds = loads - kept_rows * row_rep
            total_bytes = loads * loaded_bytes + out_bytes
    else:
        adds = y.numel() * max(x.shape[dim] - 1, 0)
        total_bytes = x.numel() * loaded_bytes + out_bytes
    shape = ",".join(str(size) for size in x.shape)
    return {"name": f"reduce[{shape}] dim={dim}", "flops32": adds, "bytes": total_bytes}
