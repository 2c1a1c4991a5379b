"""Hypothesis strategies for broadcast (stride-0) tensors, following semantics doc §4.2.

A drawn tensor has 0-4 dims (or a given shape). Each size comes from 0..5 (10%), 1..5 (70%)
or 6..40 (20%), and the logical numel is capped (20k by default, so thousands of examples
run in seconds). A random subset of dims is broadcast: the base has size 1 there and is
`expand`ed; 10% of tensors come from a 0-d base (every dim broadcast). A third of the bases
are non-contiguous (`[..., ::2]` of a wider tensor) and half of the expanded tensors are
permuted, so stride-0 dims turn up in any position and size-1 dims carry arbitrary strides.
dtype is one of bool, int32, float16, bfloat16, float32; values are integers in [-3, 3], plus
U[0, 0.5) for floats (drawn by torch from a Hypothesis-drawn seed: deterministic, and cheap
for tensors of thousands of elements).

Speed matters (tens of thousands of examples per run): each draw is one wide integer where
possible, strategies are built once (`_integers`, `_codes`), and the `draw_*` functions
take Hypothesis's `draw` so composite strategies can call them without building nested
strategy objects on every example. The public strategies wrap them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, Callable

import torch
from hypothesis import strategies as st

DTYPES = (torch.bool, torch.int32, torch.float16, torch.bfloat16, torch.float32)
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
INTEGER_DTYPES = (torch.bool, torch.int32)
MAX_NUMEL = 20_000
MAX_SIZE = 40

Draw = Callable[[st.SearchStrategy], Any]


@functools.cache
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@functools.cache
def _sampled(options: tuple) -> st.SearchStrategy:
    return st.sampled_from(options)


# ---- sizes and values ----------------------------------------------------------------------


def _size(code: int, max_size: int = MAX_SIZE) -> int:
    """A dim's size from a code in 0..99: 1..5 (70%), 0..5 (10%), 6..max_size (20%); code 0,
    where Hypothesis shrinks to, is size 1."""
    if code < 70:
        return 1 + code % 5
    if code < 80:
        return code % 6
    return 6 + (code - 80) % (max(6, max_size) - 5)


@functools.cache
def _codes(n: int) -> st.SearchStrategy[int]:
    """A code in range(n), close to uniform: `st.integers` returns 0 and other boundary values
    in about a fifth of draws, which would skew the size mix towards 1; `sampled_from`
    picks evenly (and still shrinks towards 0)."""
    return st.sampled_from(range(n))


def draw_size(draw: Draw, max_size: int = MAX_SIZE) -> int:
    return _size(draw(_codes(100)), max_size)


def values(shape: Sequence[int], dtype: torch.dtype, seed: int) -> torch.Tensor:
    """A dense tensor of integers in [-3, 3] (plus U[0, 0.5) for float dtypes)."""
    generator = torch.Generator().manual_seed(seed)
    ints = torch.randint(-3, 4, tuple(shape), generator=generator)
    if dtype == torch.bool:
        return ints != 0
    if not dtype.is_floating_point:
        return ints.to(dtype)
    noise = torch.rand(tuple(shape), generator=generator, dtype=torch.float64) * 0.5
    return (ints + noise).to(dtype)


# ---- tensors -------------------------------------------------------------------------------


def draw_tensor(
    draw: Draw,
    min_dims: int = 0,
    max_dims: int = 4,
    *,
    shape: Sequence[int | None] | None = None,
    dtypes: Sequence[torch.dtype] = DTYPES,
    max_numel: int = MAX_NUMEL,
) -> torch.Tensor:
    """A tensor whose dims may have stride 0 (semantics §4.2). `shape` fixes the logical shape
    (after any permutation); a `None` entry is drawn."""
    # Few draws per tensor (each Hypothesis draw costs ~0.1 ms, a whole example ~1 ms): the
    # rank with the first two sizes, the other sizes two per draw (base-100 codes), and the
    # layout with the values' seed.
    ranks = (min_dims, max_dims + 1) if shape is None else (len(shape), len(shape) + 1)
    drawn = shape is None or None in shape
    code = draw(_codes((ranks[1] - ranks[0]) * 100**2)) if drawn else 0
    code, rank_choice = divmod(code, ranks[1] - ranks[0])
    if shape is None:
        shape = [None] * (ranks[0] + rank_choice)
    ndim = len(shape)
    free = [d for d, n in enumerate(shape) if n is None]
    target = list(shape)
    for i, d in enumerate(free):
        if i >= 2 and i % 2 == 0:
            code = draw(_codes(100**2))
        code, size_code = divmod(code, 100)
        target[d] = _size(size_code)
    while math.prod(target) > max_numel and any(target[d] > 1 for d in free):
        largest = max(free, key=target.__getitem__)
        target[largest] = max(1, target[largest] // 2)
    # The layout code packs, from its low digits (which Hypothesis draws about uniformly; a
    # wide integer's high part comes out small): the permutation (>= ndim!: 50%), the dtype,
    # the broadcast subset (bit d: dim d), the base kind (0-d base 10%, non-contiguous base
    # 1/3); then the values' seed. Code 0: a contiguous, unpermuted, unbroadcast tensor.
    orders = math.factorial(ndim)
    code = draw(_integers(0, 2 * orders * 2**ndim * 30 * len(dtypes) * 2**31 - 1))
    code, order = divmod(code, 2 * orders)
    code, dtype_index = divmod(code, len(dtypes))
    code, broadcast = divmod(code, 2**ndim)
    seed, base_kind = divmod(code, 30)
    permutation = list(range(ndim))
    if ndim > 1 and order >= orders:
        permutation = _nth_permutation(ndim, order - orders)
    logical = [0] * ndim  # t.permute(p).shape[i] == logical[p[i]]
    for i, d in enumerate(permutation):
        logical[d] = target[i]
    dtype = dtypes[dtype_index]
    if ndim > 0 and base_kind >= 27:  # 10%
        base = values((), dtype, seed)  # every dim is broadcast
    else:
        base_shape = [1 if broadcast >> d & 1 else n for d, n in enumerate(logical)]
        if base_shape and 17 <= base_kind < 27:  # a non-contiguous base (1/3)
            base = values([*base_shape[:-1], 2 * base_shape[-1]], dtype, seed)[..., ::2]
        else:
            base = values(base_shape, dtype, seed)
    tensor = base.expand(logical)
    return tensor.permute(permutation) if permutation != list(range(ndim)) else tensor


def _nth_permutation(n: int, index: int) -> list[int]:
    """The index-th permutation of range(n) in lexicographic order."""
    items, result = list(range(n)), []
    for position in range(n, 0, -1):
        block = math.factorial(position - 1)
        result.append(items.pop(index // block))
        index %= block
    return result


def draw_dims(draw: Draw, ndim: int, *, allow_none: bool = True, allow_empty: bool = True):
    """A valid `dim` for a tensor of `ndim` dims: None, an int (possibly negative) or a tuple
    of unique dims, each possibly written in its negative form (semantics §4.2). An empty
    tuple means "every dim" for sum/mean/amax/count_nonzero and "no dim" for any/all (§2.1)."""
    rank = max(ndim, 1)  # a 0-d tensor accepts dim 0 and -1
    # One draw: the kind (int, tuple, None: a third each), then the int, or the tuple as a
    # subset mask and a "written negative" mask; code 0 is dim 0, where Hypothesis shrinks.
    kinds = 3 if allow_none else 2
    code = draw(_codes(kinds * 4**rank))
    kind, rest = code % kinds, code // kinds
    if kind == 0:
        rest %= 2 * rank
        return rest // 2 - rank if rest % 2 else rest // 2
    if kind == 2:
        return None
    negative, subset = divmod(rest, 2**rank)
    if not allow_empty and subset == 0:
        subset = 1
    return tuple(d - rank if negative >> d & 1 else d for d in range(rank) if subset >> d & 1)


def draw_leading_copies(draw: Draw, max_dims: int = 3, **kwargs) -> tuple[torch.Tensor, int]:
    """`(t, copies)` for code that adds a leading broadcast dim: `t.expand(copies, *t.shape)`.
    The base tensor is kept small enough that the expanded one stays under the numel cap."""
    copies = draw_size(draw)
    cap = max(1, MAX_NUMEL // max(copies, 1))
    return draw_tensor(draw, 0, max_dims, max_numel=cap, **kwargs), copies


def draw_expandable_rows(draw: Draw, ndim: int, **kwargs) -> tuple[torch.Tensor, int]:
    """`(t, copies)` for `t.expand(copies, -1, ...)` with `ndim` sizes: t has ndim - 1 dims, or
    ndim dims with a first size of 1 or copies (as `expand` requires); one time in 20 another
    rank, for which both forms must raise alike."""
    code = draw(_codes(100 * 20 * 2))  # one draw: copies, tensor rank, first size
    code, copies_code = divmod(code, 100)
    first, kind = divmod(code, 20)
    copies = _size(copies_code)
    cap = max(1, MAX_NUMEL // max(copies, 1))
    if kind == 19:
        rank = (max(ndim - 2, 0), ndim + 1)[first]
        return draw_tensor(draw, shape=[None] * rank, max_numel=cap, **kwargs), copies
    if kind < 10:
        shape = [None] * (ndim - 1)
    else:
        shape = [(1, copies)[first]] + [None] * (ndim - 1)
    return draw_tensor(draw, shape=shape, max_numel=cap, **kwargs), copies


# ---- public strategies ---------------------------------------------------------------------


def sizes(max_size: int = MAX_SIZE) -> st.SearchStrategy[int]:
    return st.composite(lambda draw: draw_size(draw, max_size))()


@st.composite
def broadcast_tensors(draw, min_dims: int = 0, max_dims: int = 4, **kwargs) -> torch.Tensor:
    return draw_tensor(draw, min_dims, max_dims, **kwargs)


@st.composite
def dims(draw, ndim: int, **kwargs):
    return draw_dims(draw, ndim, **kwargs)


def keepdims() -> st.SearchStrategy[bool]:
    return st.booleans()


@st.composite
def with_leading_copies(draw, max_dims: int = 3, **kwargs):
    return draw_leading_copies(draw, max_dims, **kwargs)


@st.composite
def expandable_rows(draw, ndim: int, **kwargs):
    return draw_expandable_rows(draw, ndim, **kwargs)
