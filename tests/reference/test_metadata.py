"""The shipped launch-metadata hook reports exactly what the naive one does, with memory that
follows the mask's storage instead of its logical size.

Triton's interpreter never calls launch_metadata (semantics §6), so the hook is called directly.
"""

from types import SimpleNamespace

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from stridelint.reference.measure import compare_hooks
from stridelint.reference.metadata import _narrow_broadcast, _repeats, reduce_launch_metadata

KERNEL = SimpleNamespace(name="_reduce_kernel")


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
def broadcast_masks(draw):
    """3-D masks with sizes 0..6, broadcast over a random subset of dims (sometimes from a 0-d
    or lower-rank base), sometimes permuted so stride-0 dims land anywhere."""
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=3, max_size=3)))
    base_shape = tuple(1 if draw(st.booleans()) else size for size in shape)
    base_shape = base_shape[draw(st.integers(0, 3)):]
    dtype = draw(st.sampled_from([torch.bool, torch.int32]))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))
    mask = torch.randint(0, 3, base_shape, generator=generator).to(dtype).expand(shape)
    order = draw(st.permutations(range(3)))
    return mask.permute(*order)


@settings(max_examples=300, deadline=None)
@given(broadcast_masks(), st.integers(-3, 2), st.sampled_from([None, torch.float32, torch.bfloat16]))
def test_shipped_hook_matches_naive_hook(mask, dim, scale_dtype):
    args = hook_args(mask, dim, scale_dtype)
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


def test_the_shipped_hook_is_exactly_the_fix_of_the_naive_hook():
    """The validated target: `stridelint fix` turns the naive hook into the shipped one."""
    from pathlib import Path

    from stridelint.config import Config
    from stridelint.engine import fix_text
    from stridelint.source import decode

    root = Path(__file__).resolve().parents[2]
    naive = (root / "fixes" / "SL101" / "reference_hook.before.py").read_text(encoding="utf-8")
    shipped = (root / "stridelint" / "reference" / "metadata.py").read_text(encoding="utf-8")
    bundled = (root / "stridelint" / "reference" / "naive_metadata.py.txt").read_text("utf-8")
    fixed = fix_text(decode(naive.encode()), Config(root=root, source=None), None, unsafe=False)
    assert fixed.text == shipped
    assert bundled == naive  # what `stridelint demo` lints
