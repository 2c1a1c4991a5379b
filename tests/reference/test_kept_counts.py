"""The Triton count of kept elements and kept rows (kept_counts.py) is exact: every rank, dim,
layout and mask dtype, ragged and empty sizes, and reduced dims split across programs.

Off CUDA the kernel runs in Triton's interpreter (conftest.py)."""

import pytest
import torch

from stridelint.reference import kept_counts
from stridelint.reference.kept_counts import weighted_kept_counts

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
COUNTS = ((1, 0, 0), (0, 1, 0))  # (kept, kept rows) as they are


def expected_counts(mask, dim):
    kept = mask != 0
    return int(kept.sum()), int(kept.any(dim).sum())


def random_mask(shape, dtype, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, 3, shape, generator=generator).to(dtype).to(DEVICE)


def counted(mask, dim, weights=COUNTS):
    first, second = weighted_kept_counts(mask, dim, weights)
    for count in (first, second):
        assert count.dtype == torch.int64 and count.shape == () and count.device == mask.device
    return int(first), int(second)


@pytest.fixture
def split_reduced_dims(monkeypatch):
    """Tiles of 8 elements, 2 a program: a reduced dim longer than 16 is split across programs,
    as one longer than 16384 is by default."""
    monkeypatch.setattr(kept_counts, "TILE", 8)
    monkeypatch.setattr(kept_counts, "TILES_PER_PROGRAM", 2)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.uint8, torch.int64])
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 1, 3), (3, 7, 5), (2, 4095, 1), (1, 3, 4095)])
def test_counts_match_torch_over_each_dim(shape, dtype):
    mask = random_mask(shape, dtype)
    for dim in range(3):
        assert counted(mask, dim) == expected_counts(mask, dim), dim


@pytest.mark.parametrize("dtype", [torch.bool, torch.int32])
@pytest.mark.parametrize(("shape", "dim"), [((3, 40, 5), 1), ((37, 2, 3), 0), ((2, 3, 100), 2), ((1, 1, 17), 2)])
def test_split_reduced_dims_count_each_kept_row_once(split_reduced_dims, shape, dim, dtype):
    for seed in range(3):
        mask = random_mask(shape, dtype, seed)
        assert counted(mask, dim) == expected_counts(mask, dim)
    # A row kept in every program's part must still count once.
    assert counted(torch.ones(shape, dtype=dtype, device=DEVICE), dim) == (
        mask.numel(), mask.numel() // shape[dim]
    )


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0)])
def test_any_layout(order):
    mask = random_mask((5, 6, 7), torch.int32).permute(*order)
    sliced = random_mask((6, 9, 7), torch.bool)[1::2, ::3, 2:]
    for dim in range(3):
        assert counted(mask, dim) == expected_counts(mask, dim)
        assert counted(sliced, dim) == expected_counts(sliced, dim)


@pytest.mark.parametrize("shape", [(5,), (4, 9), (2, 3, 4, 5)])
def test_other_ranks(shape):
    mask = random_mask(shape, torch.bool)
    for dim in range(len(shape)):
        assert counted(mask, dim) == expected_counts(mask, dim)


@pytest.mark.parametrize(("shape", "dim"), [((0, 3, 4), 1), ((3, 0, 4), 1), ((3, 4, 0), 2), ((3, 4, 0), 0)])
def test_empty_masks_count_nothing_but_the_constants(shape, dim):
    mask = torch.ones(shape, dtype=torch.bool, device=DEVICE)
    assert counted(mask, dim, ((2, -1, 5), (3, 0, 7))) == (5, 7)


def test_weights_combine_the_counts_and_add_the_constants_once(split_reduced_dims):
    mask = random_mask((9, 50, 3), torch.int32)  # 3 x 4 programs
    kept, rows = expected_counts(mask, 1)
    assert counted(mask, 1, ((5, -3, 11), (-2, 7, -13))) == (5 * kept - 3 * rows + 11, -2 * kept + 7 * rows - 13)


def test_split_counts_allocate_one_flag_per_row_only(split_reduced_dims, monkeypatch):
    sizes = []
    zeros = torch.zeros

    def recording_zeros(*args, **kwargs):
        out = zeros(*args, **kwargs)
        sizes.append(out.numel())
        return out

    monkeypatch.setattr(torch, "zeros", recording_zeros)
    counted(random_mask((3, 40, 5), torch.bool), 1)  # split: 15 rows
    counted(random_mask((3, 8, 5), torch.bool), 1)  # one program a row
    assert sizes == [2 + 15, 2]


gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("mask_dtype", [torch.bool, torch.int32])
@pytest.mark.parametrize(
    ("stored_shape", "shape", "dim"),
    [
        ((65536, 4, 1), (65536, 4, 8192), 2),  # the benchmark's hook shape
        ((65536, 4, 1), (65536, 4, 8192), 0),  # 4 rows of 65536: split
        ((256, 1, 8192), (256, 4, 8192), 1),
        ((1, 1, 2**20), (3, 4, 2**20), 2),  # one row of 2**20: split
        ((64, 64, 64), (64, 64, 64), 1),
    ],
)
def test_hook_on_cuda_is_exact_within_the_mask_storage(stored_shape, shape, dim, mask_dtype):
    """Issue 20's bound, measured as the benchmark does (`torch.cuda.max_memory_allocated`)."""
    from stridelint.reference.measure import peak_memory
    from stridelint.reference.metadata import reduce_launch_metadata

    stored = random_mask(stored_shape, mask_dtype)
    mask = stored.expand(shape)
    x = torch.empty((), dtype=torch.float16, device=DEVICE).expand(shape)
    y = torch.empty((), dtype=torch.float16, device=DEVICE).expand([n for d, n in enumerate(shape) if d != dim])
    args = {"X": x, "Y": y, "Mask": mask, "Scale": x, "DIM": dim, "HAS_MASK": True, "HAS_SCALE": False}
    kernel = type("Kernel", (), {"name": "_reduce_kernel"})
    reduce_launch_metadata((1,), kernel, args)  # compiled outside the measurement
    metadata, peak = peak_memory(lambda: reduce_launch_metadata((1,), kernel, args), DEVICE)
    assert peak <= 1.5 * stored.untyped_storage().nbytes(), peak
    kept, kept_rows = expected_counts(stored, dim)
    reps = [n // s for n, s in zip(shape, stored_shape)]
    loads = kept * reps[0] * reps[1] * reps[2]
    rows = kept_rows * reps[0] * reps[1] * reps[2] // reps[dim]
    assert int(metadata["flops32"]) == loads - rows
    assert int(metadata["bytes"]) == loads * 2 + y.numel() * 2
