"""The reference reduce kernel against PyTorch: every dim, dtype, layout and broadcast pattern.

On CPU the kernel runs in Triton's interpreter (see conftest.py), so shapes stay tiny.
"""

import importlib
import itertools
import re
from types import SimpleNamespace

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stridelint.reference import reduce
from stridelint.reference.measure import check_kernel, reference_reduce
from stridelint.reference.metadata import reduce_launch_metadata

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
SHAPE = (3, 5, 6)
# Kernel and reference both accumulate in fp32 and round once to the output dtype, but in a
# different order: results may differ by about one ulp of the output dtype.
TOLERANCE = {
    torch.float16: {"rtol": 2e-3, "atol": 2e-3},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1.6e-2},
    torch.float32: {"rtol": 1e-5, "atol": 1e-5},
}
# Every way to broadcast an operand over a subset of x's three dims.
BROADCAST_SUBSETS = [dims for n in range(4) for dims in itertools.combinations(range(3), n)]


def make_x(shape=SHAPE, dtype=torch.float32, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator).to(device=DEVICE, dtype=dtype)


def make_permuted_x(shape, memory_order, dtype=torch.float32, seed=0):
    """x of ``shape`` whose dims, from outermost to innermost in memory, are ``memory_order``."""
    stored = make_x(tuple(shape[d] for d in memory_order), dtype, seed)
    return stored.permute(*(memory_order.index(d) for d in range(3)))


def make_mask(shape, dtype=torch.int32, seed=1):
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, 3, shape, generator=generator).to(device=DEVICE, dtype=dtype)


def make_scale(shape, seed=2):
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=generator).to(DEVICE)


def broadcast_base_shape(shape, broadcast_dims):
    return tuple(1 if d in broadcast_dims else size for d, size in enumerate(shape))


def assert_matches_reference(x, dim, mask=None, scale=None, out_dtype=None):
    result = reduce(x, dim, mask, scale, out_dtype=out_dtype)
    expected = reference_reduce(x, dim, mask, scale, out_dtype)
    assert result.dtype == expected.dtype
    torch.testing.assert_close(result, expected, **TOLERANCE[result.dtype])


@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("dim", range(-3, 3))
def test_plain_sum_matches_torch(dim, dtype):
    assert_matches_reference(make_x(dtype=dtype), dim)


@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("dim", range(-3, 3))
def test_dense_mask_and_scale_match_torch(dim, dtype):
    assert_matches_reference(make_x(dtype=dtype), dim, make_mask(SHAPE), make_scale(SHAPE))


@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize("broadcast_dims", BROADCAST_SUBSETS)
def test_mask_broadcast_over_any_dims(broadcast_dims, dim):
    mask = make_mask(broadcast_base_shape(SHAPE, broadcast_dims))
    assert_matches_reference(make_x(), dim, mask.expand(SHAPE))


@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize("broadcast_dims", BROADCAST_SUBSETS)
def test_scale_broadcast_over_any_dims(broadcast_dims, dim):
    scale = make_scale(broadcast_base_shape(SHAPE, broadcast_dims))
    assert_matches_reference(make_x(), dim, make_mask(SHAPE), scale.expand(SHAPE))


@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize("operand_shape", [(), (1,), (SHAPE[2],), (SHAPE[1], 1), (SHAPE[0], 1, SHAPE[2])])
def test_lower_rank_mask_and_scale_are_broadcast(operand_shape, dim):
    mask = make_mask(operand_shape)
    scale = make_scale(operand_shape)
    assert_matches_reference(make_x(), dim, mask, scale)


@pytest.mark.parametrize(
    "mask_dtype",
    [torch.bool, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.uint32],
)
def test_bool_and_integer_masks(mask_dtype):
    mask = make_mask(broadcast_base_shape(SHAPE, (1,)), mask_dtype)
    assert_matches_reference(make_x(), 1, mask)


@pytest.mark.parametrize("scale_dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_scale_dtypes(scale_dtype):
    assert_matches_reference(make_x(), 2, make_mask(SHAPE), make_scale(SHAPE).to(scale_dtype))


@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize("memory_order", list(itertools.permutations(range(3))))
def test_permuted_x(memory_order, dim):
    x = make_permuted_x(SHAPE, memory_order)
    assert x.shape == SHAPE
    mask = make_mask(broadcast_base_shape(SHAPE, (2,)))
    assert_matches_reference(x, dim, mask, make_scale(SHAPE[1:]))


@pytest.mark.parametrize("dim", range(3))
def test_sliced_x(dim):
    x = make_x((4, 7, 12))[1:, ::2, 1::3]
    assert not x.is_contiguous()
    assert_matches_reference(x, dim, make_mask(x.shape[1:]))


def test_reduction_longer_than_one_tile():
    x = make_x((2, 3, 3000))
    assert_matches_reference(x, 2, make_mask((2, 1, 3000)), make_scale((3, 1)))


@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize("order", [(0, 1, 2), (1, 2, 0), (2, 0, 1)])
def test_ragged_sizes_along_every_dim(order, dim):
    """Sizes no tile divides (7, 4095) and a size-1 dim, in every position (x (1, 7, 4095) stored,
    its dims permuted: 4095 stays contiguous, which keeps the interpreter's program count low),
    under a broadcast mask and scale."""
    x = make_x((1, 7, 4095), torch.float16).permute(*order)
    shape = x.shape
    mask = make_mask((shape[0], 1, shape[2]), torch.bool)
    assert_matches_reference(x, dim, mask, make_scale((shape[0], shape[1], 1)))


# The interpreter computes the discarded inf * 0 products with numpy, which warns.
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize("broadcast_dims", [(), (0,), (1,), (2,)], ids=["dense", "over_b", "over_m", "over_n"])
def test_masked_out_inf_and_nan_do_not_leak(broadcast_dims, dim):
    """Every way the kernel drops products (a select on each, on each sum where the mask is
    constant along the reduced dim, a 0 scale where x is read only where kept)."""
    assert_drops_inf_and_nan(make_mask(broadcast_base_shape(SHAPE, broadcast_dims)), dim)


def assert_drops_inf_and_nan(mask, dim, shape=SHAPE):
    x = make_x(shape).masked_fill(mask == 0, float("nan"))
    # inf where dropped, or finite and constant along N (loaded once per tile row or program).
    for scale in (make_scale(shape).masked_fill(mask == 0, float("inf")), make_scale(shape[:2] + (1,))):
        result = reduce(x, dim, mask, scale)
        assert result.isfinite().all()
        torch.testing.assert_close(result, reference_reduce(x, dim, mask, scale))


@pytest.mark.parametrize("dim", range(3))
def test_size_one_dims(dim):
    assert_matches_reference(make_x((1, 5, 1)), dim, make_mask((1, 5, 1)))


def test_empty_reduced_dim_gives_zeros():
    result = reduce(make_x((3, 0, 4)), 1)
    assert torch.equal(result, torch.zeros(3, 4, device=DEVICE))


def test_empty_output():
    assert reduce(make_x((3, 0, 4)), 0).shape == (0, 4)


@pytest.mark.parametrize("out_dtype", list(TOLERANCE))
def test_out_dtype(out_dtype):
    assert_matches_reference(make_x(dtype=torch.bfloat16), 0, make_mask(SHAPE[1:]), out_dtype=out_dtype)


def test_out_is_written_and_returned():
    x = make_x()
    out = torch.empty(SHAPE[0], SHAPE[2], device=DEVICE)
    assert reduce(x, 1, out=out) is out
    torch.testing.assert_close(out, reference_reduce(x, 1))


def test_non_contiguous_out():
    x = make_x()
    out = torch.zeros(SHAPE[2], SHAPE[0], device=DEVICE).t()
    reduce(x, 1, out=out)
    torch.testing.assert_close(out, reference_reduce(x, 1))


@st.composite
def reduce_cases(draw):
    """x of random shape, layout and dtype; mask and scale absent, dense, broadcast over a
    random subset of dims, or of lower rank."""
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=3, max_size=3)))
    memory_order = tuple(draw(st.permutations(range(3))))
    dtype = draw(st.sampled_from(list(TOLERANCE)))
    seed = draw(st.integers(0, 2**16))
    x = make_permuted_x(shape, memory_order, dtype, seed)

    def operand(make):
        kind = draw(st.sampled_from(["absent", "dense", "broadcast", "lower_rank"]))
        if kind == "absent":
            return None
        if kind == "dense":
            return make(shape)
        if kind == "lower_rank":
            return make(shape[draw(st.integers(1, 3)):])
        broadcast_dims = draw(st.sets(st.integers(0, 2)))
        return make(broadcast_base_shape(shape, broadcast_dims)).expand(shape)

    mask_dtype = draw(st.sampled_from([torch.bool, torch.int32]))
    mask = operand(lambda s: make_mask(s, mask_dtype, seed + 1))
    scale = operand(lambda s: make_scale(s, seed + 2))
    return x, draw(st.integers(-3, 2)), mask, scale


@settings(max_examples=50, deadline=None)
@given(reduce_cases())
def test_random_cases_match_torch(case):
    assert_matches_reference(*case)


REDUCE_MODULE = importlib.import_module("stridelint.reference.reduce")  # not the function


@pytest.fixture(params=["shared_mask_rows", "small_mask_rows"])
def constant_size_tiles(request, monkeypatch):
    """Every reduce over a dim that is not contiguous (longer than 1) on unsplit 2-D tiles, and
    every reduce over the contiguous dim on row tiles, whose sizes are compiled in
    (CONSTANT_SIZES, CONSTANT_ROW_SIZES), whatever the input's size and grid; rows under a mask
    that repeats along them on the shared-mask tiles or on the small-mask ones (SMALL_MASK_*)."""
    small = request.param == "small_mask_rows"
    for name, value in {"SHORT_K": 1, "TWO_D_MAX_K": 2**62, "TWO_D_MIN_PROGRAMS_PER_SM": 0,
                        "CONSTANT_SIZES": True, "CONSTANT_ROW_SIZES": True, "CONSTANT_SIZES_MIN_ELEMENTS": 0,
                        "COLUMN_BLOCK_I": 2, "COLUMN_TILE": 4, "ROW_TILE": 2, "ROW_UNROLL": 2,
                        "REUSE_ROWS": 2, "REUSE_TILE": 4, "REUSE_UNROLL": 1, "SMALL_MASK_BYTES": 2**62 if small else -1,
                        "SMALL_MASK_ROWS": 4, "SMALL_MASK_TILE": 8, "SMALL_MASK_UNROLL": 2}.items():
        monkeypatch.setattr(REDUCE_MODULE, name, value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reduce_cases())
def test_random_cases_match_torch_with_constant_size_tiles(constant_size_tiles, case):
    x, dim = case[0], case[1] % 3
    mask = case[2]
    plan = REDUCE_MODULE._plan(x, dim, None if mask is None else mask.expand(x.shape))
    column_tiles = REDUCE_MODULE._fast_dim(x) != dim
    constants = REDUCE_MODULE._size_constants(plan, x, column_tiles, (x.shape[plan.inner], x.shape[dim]))
    assert (constants["SIZE_K"] > 0) == (plan.block_k > 1 or not column_tiles)  # the path under test
    assert_matches_reference(*case)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize(("shape", "dim"), [((3, 4, 8), 2), ((3, 5, 7), 2), ((2, 8, 6), 1), ((8, 3, 5), 0)])
def test_constant_size_tiles_on_exact_and_ragged_sizes(constant_size_tiles, shape, dim):
    """Sizes the tiles cover exactly or not, every mask broadcast, masked-out inf and NaN dropped."""
    x = make_x(shape, torch.float16)
    for broadcast_dims in BROADCAST_SUBSETS:
        mask = make_mask(broadcast_base_shape(shape, broadcast_dims), torch.bool)
        assert_matches_reference(x, dim, mask.expand(shape), make_scale((shape[0], 1, 1)))
    for broadcast_dims in [(), (0,), (1,), (2,)]:
        assert_drops_inf_and_nan(make_mask(broadcast_base_shape(shape, broadcast_dims)), dim, shape)


@pytest.fixture
def one_row_tiles(monkeypatch):
    """Non-contiguous reduced dims take the one-reduced-row tile whatever the grid (the default
    now; kept so a later threshold cannot silently take tiny shapes off this path)."""
    monkeypatch.setattr(REDUCE_MODULE, "ONE_ROW_MIN_PROGRAMS", 1)
    monkeypatch.setattr(REDUCE_MODULE, "TWO_D_MAX_K", 0)


# The fixture only sets a constant: sharing it across the generated inputs is what is wanted.
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reduce_cases())
def test_random_cases_match_torch_with_one_row_tiles(one_row_tiles, case):
    assert REDUCE_MODULE._tile_shape(4, 6, 600, False)[1] == 1  # the path under test
    assert_matches_reference(*case)


@pytest.fixture(params=["one_row_unrolled", "two_d", "one_row_wide_two_launches"])
def split_tiles(request, monkeypatch):
    """Tiny shapes take every path large ones do: short tiles along k, unrolled loop steps, the
    reduced dim split across programs (fp32 partials added by the tile's last program, or by the
    finalize kernel in a second launch), rows sharing a mask load, one-row or 2-D column tiles,
    int32 or int64 offsets, masks applied to every product or to sums and scales."""
    overrides = {
        "SPLIT_MIN_ELEMENTS": 0, "SPLIT_MIN_PROGRAMS_PER_SM": 10**9, "SPLIT_TARGET_PROGRAMS_PER_SM": 10**9,
        "SPLIT_MIN_STEPS": 1, "ROW_TILE": 4, "ROW_ROWS": 2, "REUSE_ROWS": 2, "REUSE_TILE": 4,
        "TWO_D_MIN_PROGRAMS_PER_SM": 10**9, "TWO_D_MAX_K": 0, "SMALL_MASK_BYTES": -1,
    }
    if request.param.startswith("two_d"):  # every column reduce on 2-D tiles, masks varying along both too
        overrides.update({"COLUMN_BLOCK_I": 2, "COLUMN_TILE": 4, "ONE_ROW_MAX_K": 0})
    if request.param == "one_row_wide_two_launches":
        overrides.update({"FINISH_SPLIT_IN_KERNEL": False, "NARROW_INDEX": False, "MASK_AFTER_SUM": False})
    else:
        overrides.update({"ONE_ROW_COLUMNS": 2, "ONE_ROW_MASKED_COLUMNS": 4, "ONE_ROW_UNROLL": 2, "ROW_UNROLL": 2, "REUSE_UNROLL": 3,
                          "SHORT_K": 3, "LONG_COLUMNS": 4, "LONG_UNROLL": 2})
    for name, value in overrides.items():
        monkeypatch.setattr(REDUCE_MODULE, name, value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reduce_cases())
def test_random_cases_match_torch_with_split_reduced_dim(split_tiles, case):
    x, dim = case[0], case[1] % 3
    plan = REDUCE_MODULE._plan(x, dim, None)
    assert (plan.splits > 1) == (x.shape[dim] >= 2 * plan.block_k * plan.unroll)
    assert_matches_reference(*case)


@pytest.mark.parametrize("dim", range(3))
@pytest.mark.parametrize("mask_dtype", [torch.bool, torch.int32])
def test_split_reduced_dim_with_masks_broadcast_every_way(split_tiles, mask_dtype, dim):
    x = make_x((3, 6, 7), torch.float16)
    for broadcast_dims in BROADCAST_SUBSETS:
        mask = make_mask(broadcast_base_shape(x.shape, broadcast_dims), mask_dtype)
        assert_matches_reference(x, dim, mask.expand(x.shape), make_scale((3, 6, 1)))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dim", range(3))
def test_split_reduced_dim_drops_inf_and_nan(split_tiles, dim):
    shape = (3, 6, 7)
    for broadcast_dims in [(), (0,), (1,), (2,), (1, 2)]:
        assert_drops_inf_and_nan(make_mask(broadcast_base_shape(shape, broadcast_dims)), dim, shape)


def test_split_reduced_dim_finishes_in_one_launch_and_resets_its_counters(split_tiles, monkeypatch):
    x, mask = make_x((3, 8, 7)), make_mask((3, 8, 1))  # k of 8: split under two 2-D tiles a step too
    finalize = _LaunchRecorder()
    monkeypatch.setattr(REDUCE_MODULE, "_finalize_kernel", finalize)
    first = reduce(x, 1, mask)
    assert REDUCE_MODULE._plan(x, 1, mask.expand(x.shape)).splits > 1
    expect_second_launch = not REDUCE_MODULE.FINISH_SPLIT_IN_KERNEL
    assert bool(finalize.launches) == expect_second_launch
    if expect_second_launch:
        return
    assert all(int(counters.count_nonzero()) == 0 for counters in REDUCE_MODULE._ARRIVALS.values())
    torch.testing.assert_close(first, reference_reduce(x, 1, mask))
    assert torch.equal(reduce(x, 1, mask), first)  # the same sums in the same order


def test_split_reduced_dim_writes_non_contiguous_out(split_tiles):
    x = make_x((3, 5, 8))
    out = torch.zeros(3, 5, device=DEVICE).t().contiguous().t()
    reduce(x, 2, make_mask((3, 1, 8)), out=out)
    torch.testing.assert_close(out, reference_reduce(x, 2, make_mask((3, 1, 8))))


def meta_plan(shape, dim, mask_shape=None):
    mask = None if mask_shape is None else torch.empty(mask_shape, device="meta").expand(shape)
    return REDUCE_MODULE._plan(torch.empty(shape, device="meta"), dim, mask)


@pytest.mark.parametrize(
    ("shape", "dim", "one_row"),
    [
        ((8192, 4, 8192), 1, True),  # the benchmark's short reduced dims
        ((4, 8192, 8192), 0, True),
        ((128, 256, 8192), 1, True),
        ((32, 1024, 8192), 1, False),  # long reduced dims up to TWO_D_MAX_K: 2-D tiles
        ((4, 32768, 8192), 1, True),  # longer ones: one-row tiles, split
        ((4, 256, 8192), 1, True),
        ((8192, 8192, 4), 2, False),  # reduced dim contiguous: row tiles
    ],
)
def test_tile_choice(shape, dim, one_row):
    roles, fast_dim = REDUCE_MODULE._roles(torch.empty(shape, device="meta"), dim)
    sizes = (shape[d] for d in roles)
    tile = REDUCE_MODULE._tile_shape(*sizes, dim == fast_dim)
    assert (tile.block_k == 1) == one_row
    assert tile.block_i * tile.block_k <= max(REDUCE_MODULE.ROW_TILE, REDUCE_MODULE.REUSE_TILE,
                                              REDUCE_MODULE.ONE_ROW_COLUMNS, REDUCE_MODULE.COLUMN_TILE)


@pytest.mark.parametrize(
    ("shape", "dim", "mask_shape", "split"),
    [
        ((4, 8192, 8192), 1, (4, 8192, 8192), False),  # 2-D tiles, sizes compiled in: 512 programs, enough
        ((65536, 4, 8192), 0, (65536, 4, 8192), True),  # k over TWO_D_MAX_K: one-row tiles, too few alone
        ((65536, 4, 8192), 0, (65536, 1, 8192), True),
        ((65536, 4, 8192), 0, None, True),
        ((8192, 4, 8192), 0, None, False),  # 2-D tiles: 512 programs, enough
        ((16384, 1, 256), 0, None, True),  # 2-D tiles: 4 programs, too few
        ((8192, 4, 8192), 1, None, False),  # one-row tiles, 32768 programs
        ((8192, 4, 8192), 2, None, False),  # row tiles, 32768 programs
        ((4, 64, 8192), 1, None, False),  # too small to pay for a second launch
    ],
)
def test_long_reduced_dims_are_split_when_the_output_is_small(shape, dim, mask_shape, split):
    plan = meta_plan(shape, dim, mask_shape)
    assert (plan.splits > 1) == split
    programs = shape[plan.outer] * -(-shape[plan.inner] // plan.block_i) * plan.splits
    if split:
        tiles = shape[plan.outer] * -(-shape[plan.inner] // plan.block_i)
        longest_split = tiles * (shape[dim] // (plan.block_k * plan.unroll * REDUCE_MODULE.SPLIT_MIN_STEPS))
        assert programs >= min(REDUCE_MODULE.SPLIT_MIN_PROGRAMS_PER_SM * REDUCE_MODULE.DEFAULT_SM_COUNT, longest_split)
        assert plan.k_per_split % (plan.block_k * plan.unroll) == 0
        assert (plan.splits - 1) * plan.k_per_split < shape[dim] <= plan.splits * plan.k_per_split


@pytest.mark.parametrize(("mask_shape", "warps"), [
    (None, "LONG_WARPS"),
    ((65536, 4, 8192), "LONG_WARPS"),
    ((65536, 1, 8192), "LONG_WARPS"),
    ((65536, 4, 1), "LONG_KEPT_WARPS"),  # constant along the columns: x read only where kept
])
def test_long_one_row_tiles_take_their_warps_from_how_x_is_read(mask_shape, warps):
    plan = meta_plan((65536, 4, 8192), 0, mask_shape)
    assert plan.block_k == 1 and plan.num_warps == getattr(REDUCE_MODULE, warps)


@pytest.mark.parametrize("constant_sizes", [True, False])
@pytest.mark.parametrize(
    ("shape", "dim", "mask_shape", "two_d"),
    [
        ((8192, 4, 8192), 0, None, True),
        ((4, 8192, 8192), 1, None, True),
        ((8192, 4, 8192), 0, (8192, 4, 1), True),  # the mask broadcast over the tile's columns
        ((4, 8192, 8192), 1, (4, 1, 8192), True),  # constant along k
        ((8192, 4, 8192), 0, (8192, 1, 8192), None),  # varies along the columns and k
        ((8192, 4, 8192), 0, (8192, 4, 8192), None),
        ((4, 8192, 8192), 1, (4, 8192, 8192), None),
        ((4, 64, 8192), 1, (4, 64, 8192), False),  # too few programs to run unsplit
        ((65536, 4, 8192), 0, None, False),  # k longer than TWO_D_MAX_K
        ((8192, 4, 8192), 1, None, False),  # short k
    ],
)
def test_which_long_reduced_dims_take_2d_tiles(monkeypatch, shape, dim, mask_shape, two_d, constant_sizes):
    """None: 2-D tiles exactly when their sizes are compiled in (CONSTANT_SIZES)."""
    monkeypatch.setattr(REDUCE_MODULE, "CONSTANT_SIZES", constant_sizes)
    plan = meta_plan(shape, dim, mask_shape)
    assert (plan.block_k > 1) == (constant_sizes if two_d is None else two_d)
    if two_d:
        block_k = REDUCE_MODULE.COLUMN_TILE // REDUCE_MODULE.COLUMN_BLOCK_I
        assert (plan.block_i, plan.block_k, plan.num_warps) == (
            REDUCE_MODULE.COLUMN_BLOCK_I, block_k, REDUCE_MODULE.COLUMN_WARPS)
        # Two tiles a step only where x is read where kept: a mask constant along the columns.
        kept_only = mask_shape is not None and mask_shape[plan.inner] == 1
        assert plan.unroll == (REDUCE_MODULE.COLUMN_KEPT_UNROLL if kept_only else REDUCE_MODULE.COLUMN_UNROLL)


@pytest.mark.parametrize("row_sizes", [True, False])
@pytest.mark.parametrize(
    ("shape", "dim", "splits", "constant"),
    [
        ((8192, 4, 8192), 0, None, "2d"),  # unsplit 2-D tiles of 2**28 elements
        ((4, 8192, 8192), 1, None, "2d"),
        ((8192, 4, 8192), 0, 2, None),  # split: k read at run time
        ((16, 64, 1024), 1, None, None),  # 2**20 elements: one kernel for every shape
        ((8192, 4, 8192), 2, None, "rows"),  # row tiles: with CONSTANT_ROW_SIZES
        ((16, 64, 1024), 2, None, None),
        ((8192, 4, 8192), 2, 2, None),
        ((8192, 4, 8192), 1, None, None),  # one-row tiles
    ],
)
def test_sizes_are_compiled_in_only_for_unsplit_tiles_of_large_inputs(monkeypatch, shape, dim, splits, constant,
                                                                      row_sizes):
    monkeypatch.setattr(REDUCE_MODULE, "TWO_D_MIN_PROGRAMS_PER_SM", 0)
    monkeypatch.setattr(REDUCE_MODULE, "CONSTANT_ROW_SIZES", row_sizes)
    x = torch.empty(shape, device="meta")
    plan = REDUCE_MODULE._plan(x, dim, None)
    if splits is not None:
        plan = plan._replace(splits=splits)
    sizes = (shape[plan.inner], shape[dim])
    constant = constant == "2d" or (constant == "rows" and row_sizes)
    expected = {"SIZE_I": sizes[0], "SIZE_K": sizes[1]} if constant else {"SIZE_I": 0, "SIZE_K": 0}
    assert REDUCE_MODULE._size_constants(plan, x, REDUCE_MODULE._fast_dim(x) != dim, sizes) == expected


@pytest.mark.parametrize(
    ("mask_shape", "wide"),
    [(None, False), ((8192, 4, 1), True), ((8192, 1, 8192), False), ((8192, 4, 8192), False)],
)
def test_row_tiles_read_only_where_kept_take_int64_offsets(mask_shape, wide):
    shape, dim = (8192, 4, 8192), 2  # every offset fits int32
    x = torch.empty(shape, dtype=torch.float16, device="meta")
    mask = None if mask_shape is None else torch.empty(mask_shape, dtype=torch.bool, device="meta").expand(shape)
    out = torch.empty(shape[:2], dtype=torch.float16, device="meta")
    spec = REDUCE_MODULE._launch_spec(REDUCE_MODULE._plan(x, dim, mask), x, dim, mask, None, out)
    assert spec.constants["WIDE_INDEX"] == wide
    assert spec.constants["LOAD_ONLY_KEPT"] == wide


@pytest.mark.parametrize(
    ("shape", "dim", "mask_shape", "columns"),
    [
        ((8192, 4, 8192), 1, None, "ONE_ROW_COLUMNS"),
        ((8192, 4, 8192), 1, (8192, 1, 8192), "ONE_ROW_COLUMNS"),  # mask broadcast along k
        ((8192, 4, 8192), 1, (8192, 4, 1), "ONE_ROW_MASKED_COLUMNS"),  # varies along k
        ((8192, 4, 8192), 1, (8192, 4, 8192), "ONE_ROW_MASKED_COLUMNS"),
        ((4, 8192, 8192), 0, (4, 1, 8192), "ONE_ROW_MASKED_COLUMNS"),
    ],
)
def test_short_column_tiles_widen_where_the_mask_varies_along_k(shape, dim, mask_shape, columns):
    plan = meta_plan(shape, dim, mask_shape)
    assert (plan.block_k, plan.splits) == (1, 1)
    assert plan.block_i == getattr(REDUCE_MODULE, columns)


class _LaunchRecorder:
    """Stands in for a Triton kernel: records each launch's keyword arguments."""

    def __init__(self):
        self.launches = []

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.launches.append(kwargs)


@pytest.mark.parametrize(
    ("shape", "dim", "dtype", "mask_shape", "eviction"),
    [
        ((65536, 4, 8192), 0, torch.bfloat16, (65536, 4, 8192), "evict_first"),  # long k, dense mask
        ((4, 8192, 8192), 1, torch.bfloat16, (4, 8192, 8192), ""),  # 2-D tiles (sizes compiled in)
        ((8192, 4, 8192), 0, torch.bfloat16, (8192, 4, 8192), ""),
        ((4, 8192, 8192), 1, torch.float16, (4, 8192, 8192), ""),  # fp16: no hint
        ((4, 8192, 8192), 1, torch.bfloat16, (4, 1, 8192), ""),  # mask broadcast over M
        ((4, 8192, 8192), 1, torch.bfloat16, None, ""),
        ((8192, 4, 8192), 1, torch.bfloat16, (8192, 4, 8192), ""),  # short k
        ((4, 8192, 8192), 2, torch.bfloat16, (4, 8192, 8192), ""),  # k contiguous: row tiles
        ((65536, 4, 8192), 0, torch.float16, (65536, 1, 8192), "evict_first"),  # split, x read whole
        ((65536, 4, 8192), 0, torch.float16, (65536, 4, 8192), "evict_first"),
        ((65536, 4, 8192), 0, torch.float16, (65536, 4, 1), ""),  # split, x read only where kept
        ((65536, 4, 8192), 0, torch.float16, None, ""),
    ],
)
def test_x_eviction_hint_only_in_one_row_columns_that_read_x_whole_under_a_mask(monkeypatch, shape, dim, dtype,
                                                                                mask_shape, eviction):
    """bf16 under a dense mask in long one-row columns; any dtype in split ones under a mask that
    x is read whole under (DENSE_BF16_X_EVICTION, SPLIT_X_EVICTION)."""
    recorder = _LaunchRecorder()
    monkeypatch.setattr(REDUCE_MODULE, "_reduce_kernel", recorder)
    monkeypatch.setattr(REDUCE_MODULE, "_finalize_kernel", _LaunchRecorder())
    x = torch.empty(shape, dtype=dtype, device="meta")
    mask = None if mask_shape is None else torch.empty(mask_shape, dtype=torch.bool, device="meta")
    REDUCE_MODULE.reduce(x, dim, mask)
    assert recorder.launches[0]["X_EVICTION"] == eviction


@pytest.mark.parametrize(("shape", "dim", "fits"), [
    ((8192, 4, 8192), 0, True), ((4, 8192, 8192), 1, True), ((65536, 4, 8192), 2, False),
    ((2**14, 4, 2**14), 1, True), ((2**15, 4, 2**14), 1, False),  # 2**30 and 2**31 elements
])
def test_offsets_are_int32_only_where_every_offset_fits(shape, dim, fits):
    x = torch.empty(shape, dtype=torch.float16, device="meta")
    mask = torch.empty(shape[:2] + (1,), dtype=torch.bool, device="meta").expand(shape)
    out = torch.empty([size for d, size in enumerate(shape) if d != dim], dtype=torch.float16, device="meta")
    spec = REDUCE_MODULE._launch_spec(REDUCE_MODULE._plan(x, dim, mask), x, dim, mask, None, out)
    assert spec.constants["WIDE_INDEX"] == (not fits)


@pytest.mark.parametrize(("shape", "one_launch"), [((8192, 4, 8192), True), ((65536, 4, 8192), False)])
def test_split_reduce_takes_a_second_launch_only_with_int64_offsets(monkeypatch, shape, one_launch):
    monkeypatch.setattr(REDUCE_MODULE, "CONSTANT_SIZES", False)  # else 8192x4x8192 takes unsplit 2-D tiles
    reduce_kernel, finalize = _LaunchRecorder(), _LaunchRecorder()
    monkeypatch.setattr(REDUCE_MODULE, "_reduce_kernel", reduce_kernel)
    monkeypatch.setattr(REDUCE_MODULE, "_finalize_kernel", finalize)
    x = torch.empty(shape, dtype=torch.float16, device="meta")
    REDUCE_MODULE.reduce(x, 0, torch.empty(shape, dtype=torch.bool, device="meta"))
    assert reduce_kernel.launches[0]["SPLIT"] and reduce_kernel.launches[0]["WIDE_INDEX"] != one_launch
    assert reduce_kernel.launches[0]["FINISH_IN_KERNEL"] == one_launch
    assert len(finalize.launches) == (0 if one_launch else 1)


def test_a_call_seen_before_reuses_its_launch_until_a_setting_changes(monkeypatch):
    recorder = _LaunchRecorder()
    monkeypatch.setattr(REDUCE_MODULE, "_reduce_kernel", recorder)
    monkeypatch.setattr(REDUCE_MODULE, "_LAUNCHES", {})
    monkeypatch.setattr(REDUCE_MODULE, "SMALL_MASK_BYTES", -1)
    x = torch.empty((64, 4, 4096), dtype=torch.float16, device="meta")
    mask = torch.empty((64, 1, 4096), dtype=torch.bool, device="meta")
    REDUCE_MODULE.reduce(x, 2, mask)
    REDUCE_MODULE.reduce(x, 2, mask)
    assert len(REDUCE_MODULE._LAUNCHES) == 1 and recorder.launches[0] == recorder.launches[1]
    assert recorder.launches[0]["BLOCK_I"] == 4  # rows sharing the mask row (REUSE_ROWS)
    monkeypatch.setattr(REDUCE_MODULE, "REUSE_ROWS", 2)
    REDUCE_MODULE.reduce(x, 2, mask)
    assert len(REDUCE_MODULE._LAUNCHES) == 2 and recorder.launches[2]["BLOCK_I"] == 2
    with pytest.raises(ValueError, match="broadcastable"):  # a new signature is checked again
        REDUCE_MODULE.reduce(x, 2, torch.empty((64, 2, 4096), dtype=torch.bool, device="meta"))


@pytest.mark.parametrize("shape", [(8192, 4, 8192), (4, 8192, 8192)])
def test_row_tiles_span_the_dim_a_mask_repeats_along(shape):
    """A mask (B, 1, N) summed over N: the tile's rows run along M, so each mask load serves
    REUSE_ROWS rows of x (SMALL_MASK_ROWS where the mask's storage is at most SMALL_MASK_BYTES:
    4 x 8192 float32 values here, against 8192 x 8192); without a repeating mask, the larger kept dim."""
    plan = meta_plan(shape, 2, (shape[0], 1, shape[2]))
    small = shape[0] * shape[2] * 4 <= REDUCE_MODULE.SMALL_MASK_BYTES
    assert small == (shape[0] == 4)
    rows, tile, warps, unroll = (
        (REDUCE_MODULE.SMALL_MASK_ROWS, REDUCE_MODULE.SMALL_MASK_TILE, REDUCE_MODULE.SMALL_MASK_WARPS,
         REDUCE_MODULE.SMALL_MASK_UNROLL) if small else
        (REDUCE_MODULE.REUSE_ROWS, REDUCE_MODULE.REUSE_TILE, REDUCE_MODULE.REUSE_WARPS, REDUCE_MODULE.REUSE_UNROLL))
    assert plan.inner == 1 and (plan.block_i, plan.block_i * plan.block_k, plan.num_warps, plan.unroll) == (
        rows, tile, warps, unroll)
    assert meta_plan(shape, 2).inner == (0 if shape[0] > shape[1] else 1)
    assert meta_plan(shape, 2, (shape[0], shape[1], 1)).block_i == REDUCE_MODULE.ROW_ROWS


@pytest.mark.parametrize(
    ("shape", "mask_shape", "small_tile"),
    [
        ((4, 8192, 8192), (4, 1, 8192), True),  # sizes compiled in
        ((4, 512, 1024), (4, 1, 1024), False),  # 2**21 elements: sizes read at run time
        ((2, 2, 2**20), (2, 1, 2**20), False),  # split: sizes read at run time
    ],
)
def test_small_mask_row_tiles_only_where_their_sizes_are_compiled_in(monkeypatch, shape, mask_shape, small_tile):
    monkeypatch.setattr(REDUCE_MODULE, "SMALL_MASK_BYTES", 2**62)
    plan = meta_plan(shape, 2, mask_shape)
    assert (plan.num_warps, plan.unroll) == (
        (REDUCE_MODULE.SMALL_MASK_WARPS, REDUCE_MODULE.SMALL_MASK_UNROLL) if small_tile else
        (REDUCE_MODULE.REUSE_WARPS, REDUCE_MODULE.REUSE_UNROLL))
    assert (plan.splits > 1) == (shape[0] == 2)


@pytest.mark.parametrize(
    ("base", "view", "expected"),
    [
        ((4, 1, 8192), lambda t: t.expand(4, 8192, 8192), 4 * 8192),  # stride-0 dims count once
        ((4, 8192, 1), lambda t: t.expand(4, 8192, 8192).transpose(0, 2), 4 * 8192),
        ((3, 5, 7), lambda t: t, 3 * 5 * 7),
        ((1, 1, 1), lambda t: t.expand(5, 6, 7), 1),
    ],
)
def test_storage_bytes_count_each_stored_value_once(base, view, expected):
    mask = view(torch.empty(base, dtype=torch.int32, device="meta"))
    assert REDUCE_MODULE._storage_bytes(mask) == 4 * expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda x: reduce(x.double(), 0), "x must be float16, bfloat16 or float32"),
        (lambda x: reduce(x, 3), "dim 3 is out of range"),
        (lambda x: reduce(x, -4), "dim -4 is out of range"),
        (lambda x: reduce(x, 0, make_mask((4,))), "mask of shape (4,) is not broadcastable"),
        (lambda x: reduce(x, 0, make_mask((2, *SHAPE))), "is not broadcastable to x's shape"),
        (lambda x: reduce(x, 0, make_scale(SHAPE)), "mask must be bool or an integer dtype"),
        (lambda x: reduce(x, 0, None, make_mask(SHAPE)), "scale must be a floating-point dtype"),
        (lambda x: reduce(x, 0, make_mask(SHAPE, torch.bool).to("meta")), "mask is on meta"),
        (lambda x: reduce(x, 0, out_dtype=torch.int32), "out_dtype must be float16"),
        (lambda x: reduce(x, 0, out=torch.empty(5, 5, device=DEVICE)), "out must have shape (5, 6)"),
        (lambda x: reduce(x, 0, out=torch.empty(5, 6, device=DEVICE).half()), "dtype torch.float32"),
        (lambda x: reduce(x, 0, out=torch.empty(5, 6, device="meta")), "out is on meta"),
        (lambda x: reduce(x, 0, out=torch.empty(1, 6, device=DEVICE).expand(5, 6)), "stride-0"),
    ],
)
def test_invalid_inputs_raise_value_error(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call(make_x())


def test_check_kernel_passes():
    report = check_kernel(DEVICE)
    assert report["passed"], report


gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("dim", range(3))
def test_compiled_kernel_on_medium_shape(dim):
    shape = (64, 48, 1000)
    x = make_x(shape, torch.float16)
    assert_matches_reference(x, dim, make_mask((64, 48, 1), torch.bool), make_scale((1000,)))
    assert_matches_reference(x, dim, make_mask(shape, torch.int32))


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("mask_dtype", [torch.bool, torch.int32])
def test_compiled_kernel_with_one_row_tiles(mask_dtype):
    shape = (1024, 4, 1000)  # 1024 programs over a reduced dim of 4: the one-row tile
    x = make_x(shape, torch.float16)
    assert REDUCE_MODULE._tile_shape(1024, 1000, 4, False)[1] == 1
    assert_matches_reference(x, 1, make_mask(shape, mask_dtype), make_scale((1024, 1, 1)))
    assert_matches_reference(x, 1, make_mask((1, 1, 1000), mask_dtype))


@pytest.mark.gpu
@gpu
def test_launch_metadata_hook_runs_on_launch():
    import triton

    knobs = getattr(triton, "knobs", None)
    enter_hooks = getattr(getattr(knobs, "runtime", None), "launch_enter_hook", None)
    if not hasattr(enter_hooks, "add"):
        pytest.skip("this Triton has no launch_enter_hook chain")
    seen = []

    def record(metadata):
        seen.append(metadata.get())

    x, mask, scale = make_x((16, 4, 256), torch.float16), make_mask((16, 4, 1)), make_scale((256,))
    assert REDUCE_MODULE._plan(x, 2, mask.expand(x.shape)).splits == 1  # one launch
    enter_hooks.add(record)
    try:
        out = reduce(x, 2, mask, scale)
        torch.cuda.synchronize()
    finally:
        enter_hooks.remove(record)
    args = {
        "X": x, "Y": out, "Mask": mask.expand(x.shape), "Scale": scale.expand(x.shape),
        "DIM": 2, "HAS_MASK": True, "HAS_SCALE": True,
    }
    expected = reduce_launch_metadata((64,), SimpleNamespace(name="_reduce_kernel"), args)
    # The hook counts the mask in a launch of its own, which the enter hook sees first.
    assert [launch["name"] for launch in seen[:-1]] == ["_kept_counts_kernel"]
    assert seen[-1]["name"] == expected["name"]
    assert int(seen[-1]["flops32"]) == int(expected["flops32"])
    assert int(seen[-1]["bytes"]) == int(expected["bytes"])


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("mask_kind", ["none", "dense", "bcast_n", "bcast_m"])
@pytest.mark.parametrize(("shape", "dim"), [((4, 2048, 1024), 1), ((2048, 4, 1024), 0), ((2048, 4, 1024), 2),
                                           ((4, 2048, 1024), 2)])
def test_compiled_kernel_split_and_shared_mask_rows(shape, dim, mask_kind):
    """Shapes large enough for the split reduced dim (dims 0 and 1) and for row tiles sharing
    a mask row (dim 2, mask broadcast over M; a small mask at (4, 2048, 1024)), row tiles with
    their sizes compiled in (dim 2), checked against PyTorch."""
    batch, rows, cols = shape
    mask_shape = {"none": None, "dense": shape, "bcast_n": (batch, rows, 1), "bcast_m": (batch, 1, cols)}[mask_kind]
    mask = None if mask_shape is None else make_mask(mask_shape, torch.bool)
    x = make_x(shape, torch.float16)
    plan = REDUCE_MODULE._plan(x, dim, None if mask is None else mask.expand(shape))
    assert (plan.splits > 1) == (dim != 2)
    assert_matches_reference(x, dim, mask, make_scale((batch, rows, 1)))
    assert_matches_reference(x.float(), dim, mask, make_scale((batch, rows, 1)), out_dtype=torch.bfloat16)


# --- The bounded autotune (reduce.py's _tuned_plan) ---------------------------------------------

# Candidate tiles small enough that tiny shapes keep them apart (the shipped ones are clipped to
# the sizes, so on tiny shapes they mostly collapse into the heuristic plan).
SMALL_CANDIDATES = {
    "ROW_CANDIDATES": ((1, 4, 1, 4), (2, 8, 2, 1)),
    "REUSE_CANDIDATES": ((2, 4, 1, 2), (4, 8, 2, 1)),
    "SHORT_CANDIDATES": ((4, 1, 1, 3), (8, 1, 2, 1)),
    "LONG_CANDIDATES": ((4, 1, 1, 2),),
    "SPLIT_CANDIDATES": (1, 2),
    "LONG_COLUMNS": 8, "LONG_UNROLL": 2, "SHORT_K": 3, "COLUMN_BLOCK_I": 4, "COLUMN_TILE": 8,
    "SPLIT_MIN_ELEMENTS": 0, "SPLIT_MIN_PROGRAMS_PER_SM": 10**9, "SPLIT_MIN_STEPS": 1,
}
# (x shape, dim, mask shape): each class of candidates.
TUNE_CASES = [
    ((3, 6, 16), 2, (3, 6, 1)),  # row tiles (reduced dim contiguous)
    ((3, 6, 16), 2, (3, 1, 16)),  # row tiles sharing a mask row
    ((4, 3, 16), 1, (4, 1, 16)),  # short column tiles
    ((4, 12, 16), 1, None),  # long column tiles, split; 2-D tiles
    ((4, 12, 16), 1, (4, 12, 1)),
    ((12, 4, 16), 0, (1, 4, 16)),
]


@pytest.fixture
def small_candidates(monkeypatch):
    for name, value in SMALL_CANDIDATES.items():
        monkeypatch.setattr(REDUCE_MODULE, name, value)


@pytest.fixture
def tune_anywhere(small_candidates, monkeypatch):
    """The autotune on for every device and size, with an empty cache."""
    monkeypatch.setattr(REDUCE_MODULE, "AUTOTUNE", True)
    monkeypatch.setattr(REDUCE_MODULE, "AUTOTUNE_DEVICE_TYPES", ("cpu", "cuda"))
    monkeypatch.setattr(REDUCE_MODULE, "AUTOTUNE_MIN_ELEMENTS", 0)
    monkeypatch.setattr(REDUCE_MODULE, "_TUNED", {})


def expanded(operand, shape):
    return None if operand is None else operand.expand(shape)


@pytest.mark.parametrize(("shape", "dim", "mask_shape"), TUNE_CASES)
def test_every_candidate_plan_matches_torch(small_candidates, shape, dim, mask_shape):
    x = make_x(shape, torch.float16)
    mask = None if mask_shape is None else make_mask(mask_shape, torch.bool)
    scale = make_scale((shape[0], shape[1], 1))
    plans = REDUCE_MODULE._candidate_plans(x, dim, expanded(mask, shape))
    assert plans[0] == REDUCE_MODULE._plan(x, dim, expanded(mask, shape))  # the heuristic plan first
    assert len(plans) == len(set(plans)) >= 2
    if shape[dim] > REDUCE_MODULE.SHORT_K and dim != 2:  # long column tiles: split
        assert any(plan.splits > 1 for plan in plans)
        if mask is None:  # and the 2-D tile, split or not
            assert any(plan.block_k > 1 and plan.splits == 1 for plan in plans)
    expected = reference_reduce(x, dim, mask, scale)
    for plan in plans:
        out = torch.full_like(expected, float("nan"))
        REDUCE_MODULE._launch(plan, x, dim, expanded(mask, shape), expanded(scale, shape), out)
        torch.testing.assert_close(out, expected, **TOLERANCE[torch.float16], msg=lambda m, plan=plan: f"{plan}: {m}")


def fake_timer(times, seen):
    """A stand-in for _time_plans: runs every candidate (so each must launch) and reports
    ``times(n)`` for n candidates."""

    def time_plans(runs):
        for run in runs:
            run()
        seen.append(len(runs))
        return times(len(runs))

    return time_plans


def test_autotune_uses_and_caches_the_fastest_candidate(tune_anywhere, monkeypatch):
    seen = []
    out = torch.full((4, 16), float("nan"), device=DEVICE)

    def times(n):
        if not seen:  # candidates are timed into a scratch output, not ``out``
            assert out.isnan().all()
        return [1.0] + [0.5 + 0.01 * index for index in range(n - 1)]  # the second plan wins

    monkeypatch.setattr(REDUCE_MODULE, "_time_plans", fake_timer(times, seen))
    x, mask, scale = make_x((4, 12, 16)), make_mask((4, 12, 1)), make_scale((4, 12, 1))
    assert reduce(x, 1, mask, scale, out=out) is out
    torch.testing.assert_close(out, reference_reduce(x, 1, mask, scale))
    chosen = REDUCE_MODULE._candidate_plans(x, 1, mask.expand(x.shape))[1]
    assert REDUCE_MODULE.plan_for(x, 1, mask, scale) == chosen
    assert seen == [len(REDUCE_MODULE._candidate_plans(x, 1, mask.expand(x.shape)))]
    torch.testing.assert_close(reduce(x, 1, mask, scale), reference_reduce(x, 1, mask, scale))
    assert len(seen) == 1  # cached: the second call times nothing
    reduce(x.half(), 1, mask, scale)  # another dtype is another key
    assert len(seen) == 2
    # The heuristic plan where nothing was tuned for the key.
    assert REDUCE_MODULE.plan_for(x, 2, mask, scale) == REDUCE_MODULE._plan(x, 2, mask.expand(x.shape))


def test_autotune_keeps_the_heuristic_plan_unless_clearly_faster(tune_anywhere, monkeypatch):
    seen = []
    margin = REDUCE_MODULE.AUTOTUNE_MARGIN
    monkeypatch.setattr(REDUCE_MODULE, "_time_plans",
                        fake_timer(lambda n: [1.0, 1.0 - margin / 2] + [2.0] * (n - 2), seen))
    x, mask = make_x((12, 4, 16)), make_mask((1, 4, 16))
    assert_matches_reference(x, 0, mask)
    assert seen and REDUCE_MODULE.plan_for(x, 0, mask) == REDUCE_MODULE._plan(x, 0, mask.expand(x.shape))


@pytest.mark.parametrize("setting", ["off", "small", "other_device"])
def test_autotune_times_nothing_when_off_or_not_worth_it(tune_anywhere, monkeypatch, setting):
    if setting == "off":
        monkeypatch.setattr(REDUCE_MODULE, "AUTOTUNE", False)
    elif setting == "small":
        monkeypatch.setattr(REDUCE_MODULE, "AUTOTUNE_MIN_ELEMENTS", 10**6)
    else:
        monkeypatch.setattr(REDUCE_MODULE, "AUTOTUNE_DEVICE_TYPES", ("no such device",))

    def fail(runs):
        raise AssertionError("timed")

    monkeypatch.setattr(REDUCE_MODULE, "_time_plans", fail)
    assert_matches_reference(make_x((4, 12, 16)), 1, make_mask((4, 12, 1)))
    assert REDUCE_MODULE._TUNED == {}


def test_split_target_zero_never_splits():
    assert REDUCE_MODULE._splits(4, 8192, 8, 2**30, 132, 0) == (1, 8192)
    assert 100 <= REDUCE_MODULE._splits(4, 8192, 8, 2**30, 132, 4)[0] <= 132  # ~4 programs an SM
    assert REDUCE_MODULE._splits(4, 8192, 8, 2**30, 132) == REDUCE_MODULE._splits(
        4, 8192, 8, 2**30, 132, REDUCE_MODULE.SPLIT_TARGET_PROGRAMS_PER_SM)


@pytest.mark.parametrize(
    ("shape", "dim", "classes"),
    [((8192, 4, 8192), 0, 17), ((8192, 4, 8192), 1, 4), ((8192, 4, 8192), 2, 4), ((4, 8192, 8192), 1, 17)],
)
def test_shipped_candidates_are_few_and_distinct(shape, dim, classes):
    plans = REDUCE_MODULE._candidate_plans(torch.empty(shape, device="meta"), dim, None)
    assert len(plans) == len(set(plans)) <= classes
    assert plans[0] == meta_plan(shape, dim)


GPU_TUNE_CASES = [  # the shipped candidates, at sizes that keep them apart
    ((4, 2048, 1024), 1, "none"),
    ((4, 2048, 1024), 1, "bcast_n"),
    ((4, 2048, 1024), 1, "bcast_m"),
    ((2048, 4, 1024), 0, "bcast_m"),
    ((2048, 4, 1024), 1, "bcast_m"),
    ((2048, 4, 1024), 2, "bcast_n"),
    ((4, 2048, 1024), 2, "bcast_m"),
]


def bench_mask(shape, mask_kind):
    batch, rows, cols = shape
    mask_shape = {"none": None, "dense": shape, "bcast_n": (batch, rows, 1), "bcast_m": (batch, 1, cols)}[mask_kind]
    return None if mask_shape is None else make_mask(mask_shape, torch.bool)


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize(("shape", "dim", "mask_kind"), GPU_TUNE_CASES)
def test_compiled_candidate_plans_match_torch(shape, dim, mask_kind):
    x, mask, scale = make_x(shape, torch.float16), bench_mask(shape, mask_kind), make_scale((shape[0], shape[1], 1))
    plans = REDUCE_MODULE._candidate_plans(x, dim, expanded(mask, shape))
    assert len(plans) > 1
    expected = reference_reduce(x, dim, mask, scale)
    for plan in plans:
        out = torch.full_like(expected, float("nan"))
        REDUCE_MODULE._launch(plan, x, dim, expanded(mask, shape), expanded(scale, shape), out)
        torch.testing.assert_close(out, expected, **TOLERANCE[torch.float16], msg=lambda m, plan=plan: f"{plan}: {m}")


@pytest.mark.gpu
@gpu
def test_compiled_autotune_chooses_a_candidate_and_caches_it(monkeypatch):
    monkeypatch.setattr(REDUCE_MODULE, "AUTOTUNE", True)
    monkeypatch.setattr(REDUCE_MODULE, "_TUNED", {})
    shape = (4, 2048, 1024)  # 8 Mi elements: tuned
    x, mask, scale = make_x(shape, torch.float16), bench_mask(shape, "bcast_m"), make_scale((4, 2048, 1))
    assert_matches_reference(x, 1, mask, scale)
    assert len(REDUCE_MODULE._TUNED) == 1
    assert REDUCE_MODULE.plan_for(x, 1, mask, scale) in REDUCE_MODULE._candidate_plans(x, 1, mask.expand(shape))
    times = REDUCE_MODULE._time_plans([lambda: reduce(x, 1, mask, scale)] * 2)
    assert all(0 < seconds < 1 for seconds in times)
