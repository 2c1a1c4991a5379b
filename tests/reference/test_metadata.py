"""The shipped launch-metadata hook reports exactly what the naive one does, with memory that
follows the mask's storage instead of its logical size.

Triton's interpreter never calls launch_metadata (semantics §6), so the hook is called directly.
"""

import math
from types import SimpleNamespace

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from stridelint.reference import metadata as METADATA_MODULE
from stridelint.reference.measure import compare_hooks, peak_memory
from stridelint.reference.metadata import _count_kept, _narrow_broadcast, _repeats, reduce_launch_metadata

KERNEL = SimpleNamespace(name="_reduce_kernel")
# Where the hook counts in the Triton kernel: CUDA, or the CPU under Triton's interpreter.
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def counting_in(monkeypatch, counting):
    """Make the hook count masks on DEVICE in the Triton kernel or in torch slabs."""
    kernel_devices = (DEVICE,) if counting == "kernel" else ()
    monkeypatch.setattr(METADATA_MODULE, "KERNEL_DEVICE_TYPES", kernel_devices)


def naive_launch_metadata(grid, kernel, args):
    """The hook as first written (PR #10776's "before"): ``Mask != 0`` materializes the
    logical mask, and the int64 sums copy it again. Test-only; the linter flags this form."""
    x, y, dim = args["X"], args["Y"], args["DIM"]
    if args["HAS_MASK"]:
        m = args["Mask"] != 0
        loads = m.sum()
        adds = (m.sum(dim=dim) - 1).clamp(min=0).sum()
    else:
        loads = x.numel()
        adds = y.numel() * max(x.shape[dim] - 1, 0)
    loaded_bytes = x.element_size() + (args["Scale"].element_size() if args["HAS_SCALE"] else 0)
    shape = ",".join(str(size) for size in x.shape)
    return {
        "name": f"reduce[{shape}] dim={dim % x.ndim}",
        "flops32": adds,
        "bytes": loads * loaded_bytes + y.numel() * y.element_size(),
    }


def hook_args(mask, dim, scale_dtype=None, x_dtype=torch.float16):
    """Kernel arguments as the wrapper binds them; X and Y are never read, only their shapes."""
    shape = mask.shape
    x = torch.empty(shape, dtype=x_dtype)
    y = torch.empty([size for d, size in enumerate(shape) if d != dim % 3], dtype=x_dtype)
    scale = x if scale_dtype is None else torch.empty(shape, dtype=scale_dtype)
    return {
        "X": x, "Y": y, "Mask": mask, "Scale": scale, "DIM": dim,
        "HAS_MASK": True, "HAS_SCALE": scale_dtype is not None,
    }


def assert_same_metadata(shipped, naive):
    assert shipped["name"] == naive["name"]
    for key in ("flops32", "bytes"):
        assert shipped[key].dtype == naive[key].dtype == torch.int64
        assert shipped[key].shape == naive[key].shape == ()
        assert torch.equal(shipped[key], naive[key]), key


@st.composite
def broadcast_masks(draw, device="cpu"):
    """3-D masks with sizes 0..6, broadcast over a random subset of dims (sometimes from a 0-d
    or lower-rank base), sometimes permuted so stride-0 dims land anywhere."""
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=3, max_size=3)))
    base_shape = tuple(1 if draw(st.booleans()) else size for size in shape)
    base_shape = base_shape[draw(st.integers(0, 3)):]
    dtype = draw(st.sampled_from([torch.bool, torch.int32]))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))
    mask = torch.randint(0, 3, base_shape, generator=generator).to(dtype).to(device).expand(shape)
    order = draw(st.permutations(range(3)))
    return mask.permute(*order)


@settings(max_examples=300, deadline=None)
@given(broadcast_masks(), st.integers(-3, 2), st.sampled_from([None, torch.float32, torch.bfloat16]))
def test_shipped_hook_matches_naive_hook(mask, dim, scale_dtype):
    args = hook_args(mask, dim, scale_dtype)
    assert_same_metadata(reduce_launch_metadata((1,), KERNEL, args), naive_launch_metadata((1,), KERNEL, args))


@settings(max_examples=150, deadline=None)
@given(broadcast_masks(DEVICE), st.integers(-3, 2), st.sampled_from([None, torch.float32]))
def test_shipped_hook_counting_in_the_kernel_matches_naive_hook(mask, dim, scale_dtype):
    with pytest.MonkeyPatch.context() as monkeypatch:
        counting_in(monkeypatch, "kernel")
        monkeypatch.setattr(METADATA_MODULE, "_count_kept", None)  # the torch path is not taken
        args = hook_args(mask, dim, scale_dtype)
        shipped = reduce_launch_metadata((1,), KERNEL, args)
    assert_same_metadata(shipped, naive_launch_metadata((1,), KERNEL, args))


def test_masks_of_more_dims_than_the_kernel_takes_are_counted_in_torch(monkeypatch):
    counting_in(monkeypatch, "kernel")
    monkeypatch.setattr(METADATA_MODULE, "weighted_kept_counts", None)  # the kernel is not called
    mask = torch.randint(0, 3, (2, 1, 3, 1, 2), generator=torch.Generator().manual_seed(0)).to(DEVICE)
    mask = mask.expand(2, 4, 3, 5, 2)
    x = torch.empty(mask.shape, dtype=torch.float16)
    args = {"X": x, "Y": x.sum(3), "Mask": mask, "Scale": x, "DIM": 3, "HAS_MASK": True, "HAS_SCALE": False}
    assert_same_metadata(reduce_launch_metadata((1,), KERNEL, args), naive_launch_metadata((1,), KERNEL, args))


@pytest.mark.parametrize("dim", range(-3, 3))
def test_rescale_happens_before_the_clamp(dim):
    # Every dim is broadcast, so a narrowed row holds one kept element: scaling after the clamp
    # would count 0 adds (semantics §4.4).
    mask = torch.ones((), dtype=torch.int32).expand(2, 3, 4)
    args = hook_args(mask, dim)
    assert_same_metadata(reduce_launch_metadata((1,), KERNEL, args), naive_launch_metadata((1,), KERNEL, args))
    assert int(reduce_launch_metadata((1,), KERNEL, args)["flops32"]) == 24 - 24 // mask.shape[dim]


@pytest.mark.parametrize("dim", range(-3, 3))
@pytest.mark.parametrize("scale_dtype", [None, torch.float32])
def test_no_mask_counts_every_element(dim, scale_dtype):
    x = torch.empty(2, 5, 7, dtype=torch.bfloat16)
    y = torch.empty([size for d, size in enumerate(x.shape) if d != dim % 3], dtype=torch.float32)
    scale = torch.empty((), dtype=scale_dtype).expand(x.shape) if scale_dtype else x
    args = {"X": x, "Y": y, "Mask": x, "Scale": scale, "DIM": dim, "HAS_MASK": False, "HAS_SCALE": bool(scale_dtype)}
    metadata = reduce_launch_metadata((1,), KERNEL, args)
    assert metadata["flops32"] == y.numel() * (x.shape[dim] - 1)
    assert metadata["bytes"] == 70 * (2 + (4 if scale_dtype else 0)) + y.numel() * 4
    assert metadata["name"] == f"reduce[2,5,7] dim={dim % 3}"


def test_empty_reduced_dim_counts_no_adds():
    args = hook_args(torch.ones(1, 0, 1, dtype=torch.bool).expand(3, 0, 4), 1)
    assert int(reduce_launch_metadata((1,), KERNEL, args)["flops32"]) == 0


def test_counts_stay_tensors_on_the_mask_device():
    args = hook_args(torch.ones(2, 1, 3, dtype=torch.bool).expand(2, 4, 3), 1)
    metadata = reduce_launch_metadata((1,), KERNEL, args)
    for key in ("flops32", "bytes"):
        assert isinstance(metadata[key], torch.Tensor) and metadata[key].device == args["Mask"].device


def test_narrow_broadcast_narrows_only_dims_every_operand_repeats():
    a = torch.arange(3).reshape(3, 1, 1).expand(3, 4, 5)
    b = torch.arange(5).expand(3, 4, 5)
    narrow_a, narrow_b, scalar, reps = _narrow_broadcast(a, b, 2.0)
    assert reps == (1, 4, 1)
    assert narrow_a.shape == narrow_b.shape == (3, 1, 5)
    assert scalar == 2.0
    assert torch.equal(narrow_a.expand(a.shape), a) and torch.equal(narrow_b.expand(b.shape), b)


def test_narrow_broadcast_leaves_size_one_and_size_zero_dims():
    mask = torch.ones(1, 1, 1).expand(1, 0, 6)
    narrowed, reps = _narrow_broadcast(mask)
    assert reps == (1, 1, 6) and narrowed.shape == (1, 0, 1)


@pytest.mark.parametrize(
    ("dim", "expected"),
    [(None, 24), ((), 24), (1, 3), (-1, 4), ((0, 2), 8), ((-3, 1), 6)],
)
def test_repeats(dim, expected):
    assert _repeats((2, 3, 4), dim) == expected


@pytest.mark.parametrize("mask_dtype", [torch.int32, torch.bool])
def test_shipped_hook_memory_follows_mask_storage(mask_dtype):
    report = compare_hooks(16 * 2**20, "cpu", mask_dtype, repeats=1)
    assert report["logical_elements"] >= 16 * 2**20 and report["mask_storage_bytes"] <= 8192
    assert report["equal"]
    assert report["shipped"]["peak_bytes"] < 2**20
    assert report["naive"]["peak_bytes"] > 10 * 2**20


def _fixed_naive_hook():
    """`stridelint fix` applied to the naive hook of fixes/SL101, loaded as a module."""
    from pathlib import Path

    from stridelint.config import Config
    from stridelint.engine import fix_text
    from stridelint.source import decode

    root = Path(__file__).resolve().parents[2]
    naive = (root / "fixes" / "SL101" / "reference_hook.before.py").read_text(encoding="utf-8")
    bundled = (root / "stridelint" / "reference" / "naive_metadata.py.txt").read_text("utf-8")
    assert bundled == naive  # what `stridelint demo` lints
    fixed = fix_text(decode(naive.encode()), Config(root=root, source=None), None, unsafe=False)
    assert fixed.text != naive
    namespace = {"__name__": "fixed_reference_hook"}
    exec(compile(fixed.text, "reference_hook.fixed.py", "exec"), namespace)
    return namespace["reduce_launch_metadata"], root


@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize(
    "base_shape", [(6, 4, 1), (6, 1, 5), (1, 4, 5), (6, 4, 5), (1, 1, 1)], ids=lambda s: "x".join(map(str, s))
)
def test_the_linter_fix_of_the_naive_hook_gives_the_shipped_numbers(base_shape, dim):
    """The validated target: `stridelint fix` turns the naive hook into one that reports what
    the shipped hook reports (the shipped one also counts in one Triton launch on CUDA and in
    slabs elsewhere, to stay under the mask's storage), and the shipped hook is clean under
    `stridelint check`."""
    fixed_hook, root = _fixed_naive_hook()
    mask = torch.randint(0, 3, base_shape, generator=torch.Generator().manual_seed(dim)).to(torch.int32)
    args = hook_args(mask.expand(6, 4, 5), dim, torch.float32)
    assert_same_metadata(reduce_launch_metadata((1,), KERNEL, args), fixed_hook((1,), KERNEL, args))


def test_the_shipped_hook_has_no_findings():
    from pathlib import Path

    from stridelint.config import Config
    from stridelint.engine import fix_text
    from stridelint.source import decode

    root = Path(__file__).resolve().parents[2]
    shipped = (root / "stridelint" / "reference" / "metadata.py").read_text(encoding="utf-8")
    fixed = fix_text(decode(shipped.encode()), Config(root=root, source=None), None, unsafe=True)
    assert fixed.text == shipped


# (stored shape, logical shape, dim): broadcast over N, over M, over B, a single long row (counted
# in pieces), and a dense mask.
STORAGE_CASES = [
    ((65536, 4, 1), (65536, 4, 8192), 2),
    ((65536, 4, 1), (65536, 4, 8192), 0),
    ((256, 1, 8192), (256, 4, 8192), 2),
    ((256, 1, 8192), (256, 4, 8192), 1),
    ((1, 32, 8192), (512, 32, 8192), 2),
    ((1, 1, 2**20), (3, 4, 2**20), 2),
    ((64, 64, 64), (64, 64, 64), 1),
]


def _measured_args(mask: torch.Tensor, dim: int) -> dict:
    """A hook's `args` for a masked fp16 reduce over `dim`: X and Y are only measured, so they
    are zero-copy placeholders of their shapes."""
    shape = mask.shape
    x = torch.empty((), dtype=torch.float16).expand(shape)
    y = torch.empty((), dtype=torch.float16).expand([n for d, n in enumerate(shape) if d != dim])
    return {"X": x, "Y": y, "Mask": mask, "Scale": x, "DIM": dim, "HAS_MASK": True, "HAS_SCALE": False}


@pytest.mark.parametrize("mask_dtype", [torch.bool, torch.int32])
@pytest.mark.parametrize(("stored_shape", "shape", "dim"), STORAGE_CASES)
def test_shipped_hook_peak_stays_within_the_mask_storage(stored_shape, shape, dim, mask_dtype):
    """Issue target: the hook's temporaries peak within 1.5x the mask's storage (the CPU
    profiler's allocator events, semantics §1.5; sizes, not timings), counting in torch slabs
    as it does off CUDA (test_kept_counts.py measures the Triton path on CUDA). Before slab
    counting, the (65536, 4, 8192) bool mask broadcast over N cost 25x."""
    stored = torch.randint(0, 3, stored_shape, generator=torch.Generator().manual_seed(0)).to(mask_dtype)
    mask = stored.expand(shape)
    args = _measured_args(mask, dim)
    metadata, peak = peak_memory(lambda: reduce_launch_metadata((1,), KERNEL, args), "cpu")
    storage = stored.untyped_storage().nbytes()
    assert storage >= 2**18
    assert peak <= 1.5 * storage, (peak, storage)
    kept = stored != 0
    reps = [n // s for n, s in zip(shape, stored_shape)]
    loads = int(kept.sum()) * math.prod(reps)
    rows = int(kept.any(dim).sum()) * math.prod(r for d, r in enumerate(reps) if d != dim)
    assert int(metadata["flops32"]) == loads - rows
    assert int(metadata["bytes"]) == loads * 2 + args["Y"].numel() * 2


@pytest.mark.parametrize("limit", [1, 3, 7, 1000])
def test_slab_counting_matches_whole_counting(limit):
    mask = torch.randint(0, 2, (5, 3, 7), generator=torch.Generator().manual_seed(limit)).permute(2, 0, 1)
    for dim in range(3):
        kept, kept_rows = _count_kept(mask, dim, limit)
        assert int(kept) == int((mask != 0).sum())
        assert int(kept_rows) == int((mask != 0).any(dim).sum())


@pytest.mark.parametrize("mask_dtype", [torch.int32, torch.uint8])
@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize("broadcast_dim", range(3))
def test_the_linter_fix_of_the_naive_hook_stays_within_the_mask_storage(
    broadcast_dim, dim, mask_dtype
):
    """Issue 20, for the autofix: `stridelint fix` of the naive hook holds at most 1.5x the
    mask's storage (the CPU profiler's allocator events; sizes, not timings) and reports the
    naive hook's numbers, for a mask broadcast over each dim and each reduced dim. Before its
    bool counts went to the count helper and the per-row counts to kept minus non-empty rows,
    it held 9x-25x a 1-byte mask's storage. (uint8 stands for bool here: on CPU, `mask != 0`
    of a bool mask itself makes an int64 copy first, 8x, the user's comparison and no count.)"""
    fixed_hook, _ = _fixed_naive_hook()
    shape = (2048, 4, 2048)
    stored_shape = [1 if d == broadcast_dim else n for d, n in enumerate(shape)]
    generator = torch.Generator().manual_seed(broadcast_dim)
    stored = torch.randint(0, 3, stored_shape, generator=generator).to(mask_dtype)
    mask = stored.expand(shape)
    args = _measured_args(mask, dim)
    metadata, peak = peak_memory(lambda: fixed_hook((1,), KERNEL, args), "cpu")
    storage = stored.untyped_storage().nbytes()
    assert peak <= 1.5 * storage, (peak, storage)
    assert_same_metadata(metadata, naive_launch_metadata((1,), KERNEL, args))
