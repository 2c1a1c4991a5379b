"""The reference reduce on inputs that are not 3-D (1-D to 5-D): every dim, layouts, broadcast
masks and scales, against PyTorch; and how many 3-D launches each takes (rank.py).

On CPU the kernel runs in Triton's interpreter (see conftest.py), so shapes stay tiny.
"""

import itertools
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from stridelint.reference import rank, reduce
from stridelint.reference.measure import reference_reduce

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
TOLERANCE = {
    torch.float16: {"rtol": 2e-3, "atol": 2e-3},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1.6e-2},
    torch.float32: {"rtol": 1e-5, "atol": 1e-5},
}
SHAPES = {1: (7,), 2: (5, 7), 4: (2, 3, 4, 5), 5: (2, 1, 3, 2, 5)}


def random_tensor(shape, seed, dtype=torch.float32):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator).to(device=DEVICE, dtype=dtype)


def laid_out(shape, memory_order, seed, dtype=torch.float32):
    """A tensor of ``shape`` whose dims, outermost first in memory, are ``memory_order``."""
    stored = random_tensor(tuple(shape[d] for d in memory_order), seed, dtype)
    return stored.permute(*(memory_order.index(d) for d in range(len(shape))))


def mask_over(shape, broadcast_dims, dtype=torch.int32, seed=1):
    """A mask stored with size 1 on ``broadcast_dims``, expanded to ``shape`` (stride 0 there)."""
    stored = tuple(1 if d in broadcast_dims else size for d, size in enumerate(shape))
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, 3, stored, generator=generator).to(device=DEVICE, dtype=dtype).expand(shape)


def assert_matches_reference(x, dim, mask=None, scale=None, out_dtype=None):
    result = reduce(x, dim, mask, scale, out_dtype=out_dtype)
    expected = reference_reduce(x, dim, mask, scale, out_dtype)
    assert result.shape == expected.shape and result.dtype == expected.dtype
    torch.testing.assert_close(result, expected, **TOLERANCE[result.dtype])


def pieces(x, dim, mask=None, scale=None):
    out = torch.empty([size for d, size in enumerate(x.shape) if d != dim], device=DEVICE)
    return rank.three_d_pieces(x, dim, None if mask is None else mask.expand(x.shape),
                               None if scale is None else scale.expand(x.shape), out)


@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize(("ndim", "dim"), [(ndim, dim) for ndim in SHAPES for dim in range(-ndim, ndim)])
def test_every_dim_of_every_rank_matches_torch(ndim, dim, dtype):
    assert_matches_reference(random_tensor(SHAPES[ndim], seed=ndim, dtype=dtype), dim)


@pytest.mark.parametrize("dim", range(4))
@pytest.mark.parametrize("broadcast_dims", [dims for n in range(5) for dims in itertools.combinations(range(4), n)])
def test_4d_masks_broadcast_over_any_dims(broadcast_dims, dim):
    shape = SHAPES[4]
    scale = random_tensor((shape[0], 1, shape[2], 1), seed=3).abs()
    assert_matches_reference(random_tensor(shape, seed=dim), dim, mask_over(shape, broadcast_dims), scale)


@pytest.mark.parametrize("dim", range(4))
@pytest.mark.parametrize("memory_order", [(3, 2, 1, 0), (0, 2, 1, 3), (1, 3, 0, 2)])
def test_4d_layouts(memory_order, dim):
    shape = SHAPES[4]
    x = laid_out(shape, memory_order, seed=4)
    assert_matches_reference(x, dim, mask_over(shape, (1,), torch.bool), random_tensor(shape, seed=5))


@pytest.mark.parametrize("dim", range(4))
def test_ragged_and_size_one_dims(dim):
    shape = (1, 7, 1, 9)
    assert_matches_reference(random_tensor(shape, seed=6, dtype=torch.float16), dim, mask_over(shape, (3,)))


def test_sliced_2d_and_4d_inputs():
    assert_matches_reference(random_tensor((6, 9), seed=7)[1::2, ::3], 1)
    assert_matches_reference(random_tensor((3, 4, 6, 5), seed=8)[:, 1:3, ::2], 2, mask_over((3, 2, 3, 5), (0,)))


def test_non_contiguous_out_of_a_4d_reduce():
    x = random_tensor(SHAPES[4], seed=9)
    out = torch.zeros(5, 4, 2, device=DEVICE).permute(2, 1, 0)  # (2, 4, 5), stored the other way round
    result = reduce(x, 1, out=out)
    assert result is out
    torch.testing.assert_close(out, reference_reduce(x, 1), **TOLERANCE[torch.float32])
    frame = torch.zeros(3, 2, 4, 5, device=DEVICE)
    reduce(x, 1, mask_over(SHAPES[4], (1, 3)), out=frame[1])  # an out that starts inside its storage
    torch.testing.assert_close(frame[1], reference_reduce(x, 1, mask_over(SHAPES[4], (1, 3))), **TOLERANCE[torch.float32])
    assert not frame[0].any() and not frame[2].any()


def test_empty_dims():
    x = random_tensor((2, 0, 3, 4), seed=10)
    assert reduce(x, 0).shape == (0, 3, 4)
    assert torch.equal(reduce(x, 1), torch.zeros(2, 3, 4, device=DEVICE))


@pytest.mark.parametrize(("shape", "dim"), [((2, 3, 4, 5), d) for d in range(4)] + [((5, 7), 0), ((5, 7), 1), ((7,), 0)])
def test_contiguous_inputs_take_one_launch(shape, dim):
    """Contiguous kept dims always merge into at most two groups."""
    assert len(pieces(random_tensor(shape, seed=11), dim)) == 1


@pytest.mark.parametrize(("broadcast_dims", "launches"), [
    ((0, 1), [1, 1, 1, 1]),  # (1, 1, M, N)
    ((2, 3), [1, 1, 1, 1]),  # (B, H, 1, 1)
    ((1, 2), [1, 3, 2, 1]),  # key padding (B, 1, 1, N): B or H apart under H and M
    ((1, 3), [2, 3, 2, 2]),  # (B, 1, M, 1)
])
def test_launches_a_4d_reduce_takes_under_each_mask(broadcast_dims, launches):
    """(B, H, M, N) = (3, 2, 4, 5): one launch for each index of the smallest group left apart."""
    x = random_tensor((3, 2, 4, 5), seed=16)
    assert [len(pieces(x, dim, mask_over(x.shape, broadcast_dims))) for dim in range(4)] == launches


def test_a_mask_stored_per_row_and_column_keeps_its_dims_apart():
    """A (B, 1, M, 1) mask over (B, H, M, N) summed over N: B, H and M cannot merge without
    reading the mask wider than it is stored, so the smallest of them is looped over."""
    shape = (3, 2, 4, 5)
    mask = mask_over(shape, (1, 3))
    found = pieces(random_tensor(shape, seed=12), 3, mask)
    assert len(found) == 2  # H, the smallest group
    assert all(piece.x.shape == (3, 4, 5) and piece.mask.stride()[2] == 0 for piece in found)
    assert_matches_reference(random_tensor(shape, seed=12), 3, mask)


def test_broadcast_dims_merge_with_each_other_only():
    """H and M both broadcast in the mask merge (0 == size * 0); B, stored, stays apart."""
    shape = (3, 2, 4, 5)
    groups = rank.kept_groups(random_tensor(shape, seed=13), 3, mask_over(shape, (1, 2)), None,
                              torch.empty(3, 2, 4, device=DEVICE))
    assert [(group.size, group.strides[1]) for group in groups] == [(3, 5), (8, 0)]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: reduce(torch.tensor(1.0, device=DEVICE), 0), "x must have at least one dim"),
        (lambda: reduce(random_tensor(SHAPES[4], 0), 4), "dim 4 is out of range for a 4-D x"),
        (lambda: reduce(random_tensor(SHAPES[2], 0), -3), "dim -3 is out of range for a 2-D x"),
        (lambda: reduce(random_tensor(SHAPES[4], 0), 0, out=torch.empty(3, 4, device=DEVICE)),
         "out must have shape (3, 4, 5)"),
        (lambda: reduce(random_tensor(SHAPES[4], 0), 0, mask_over((2, 3, 4), ())), "is not broadcastable"),
    ],
)
def test_invalid_inputs_of_other_ranks_raise_value_error(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


@st.composite
def any_rank_cases(draw):
    """x of rank 1 to 5, random sizes and memory order; mask and scale absent or broadcast over a
    random subset of dims."""
    ndim = draw(st.integers(1, 5))
    shape = tuple(draw(st.lists(st.sampled_from([1, 2, 3, 5]), min_size=ndim, max_size=ndim)))
    memory_order = tuple(draw(st.permutations(range(ndim))))
    seed = draw(st.integers(0, 2**16))
    x = laid_out(shape, memory_order, seed)
    mask = scale = None
    if draw(st.booleans()):
        mask = mask_over(shape, draw(st.sets(st.integers(0, ndim - 1))), draw(st.sampled_from([torch.bool, torch.int32])),
                         seed + 1)
    if draw(st.booleans()):
        broadcast_dims = draw(st.sets(st.integers(0, ndim - 1)))
        stored = tuple(1 if d in broadcast_dims else size for d, size in enumerate(shape))
        scale = random_tensor(stored, seed + 2).expand(shape)
    return x, draw(st.integers(-ndim, ndim - 1)), mask, scale


@settings(max_examples=40, deadline=None)
@given(any_rank_cases())
def test_random_cases_of_any_rank_match_torch(case):
    assert_matches_reference(*case)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("dim", range(4))
def test_compiled_kernel_on_a_medium_4d_shape(dim):
    """The compiled kernel on 3-D views with storage offsets (the looped pieces) and on merged ones."""
    shape = (6, 8, 40, 300)
    x = random_tensor(shape, seed=14, dtype=torch.float16)
    assert_matches_reference(x, dim, mask_over(shape, (1, 3), torch.bool), random_tensor((300,), seed=15))
    assert_matches_reference(x, dim, mask_over(shape, (), torch.int32))
