"""Any rank as 3-D: the views of x, mask, scale and out that the 3-D reduce kernel sums, without copying.

The kernel sums over k for each (o, i). The kept dims of x are merged into two wherever every
operand's strides allow it, as ``view`` would: an outer dim a and an inner dim b merge when, for
x, the mask, the scale and the output alike, stride[a] == size[b] * stride[b]. A broadcast dim
merges with another broadcast dim, since 0 == size * 0, but never with a stored one, so a mask
stays as narrow as it was stored. Dims of size 1 drop out. When more than two groups remain,
the two largest go to the kernel and the others are looped over, one launch for each of their
indices.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import torch


class Group(NamedTuple):
    """Merged kept dims: their size, and the stride of x, mask, scale and out along them."""

    size: int
    strides: tuple[int, int, int, int]


class Piece(NamedTuple):
    """One 3-D launch: x, mask and scale as (o, i, k) views, out as (o, i)."""

    x: torch.Tensor
    mask: torch.Tensor | None
    scale: torch.Tensor | None
    out: torch.Tensor


def kept_groups(x, dim: int, mask, scale, out) -> list[Group]:
    """x's kept dims of size > 1, outermost first in x's memory order, merged where every operand
    allows. ``mask`` and ``scale`` are expanded to x's shape (or None); ``out`` has the kept dims."""
    kept = [d for d in range(x.ndim) if d != dim]
    out_dim = {d: index for index, d in enumerate(kept)}
    order = sorted((d for d in kept if x.shape[d] != 1), key=x.stride, reverse=True)
    groups: list[Group] = []
    for d in order:
        strides = (x.stride(d), 0 if mask is None else mask.stride(d), 0 if scale is None else scale.stride(d),
                   out.stride(out_dim[d]))
        size = x.shape[d]
        if groups and all(outer == size * inner for outer, inner in zip(groups[-1].strides, strides)):
            groups[-1] = Group(groups[-1].size * size, strides)
        else:
            groups.append(Group(size, strides))
    return groups


def three_d_pieces(x, dim: int, mask, scale, out) -> list[Piece]:
    """The 3-D launches that sum x over ``dim`` into ``out``: one where the kept dims merge into
    two groups, else one for each index of the groups other than the two largest."""
    groups = kept_groups(x, dim, mask, scale, out)
    while len(groups) < 2:
        groups.insert(0, Group(1, (0, 0, 0, 0)))
    by_size = sorted(range(len(groups)), key=lambda index: groups[index].size)
    outer, inner = sorted(by_size[-2:])
    looped = [groups[index] for index in sorted(by_size[:-2])]
    o, i = groups[outer], groups[inner]
    operands = (x, mask, scale)
    reduced = [0 if t is None else t.stride(dim) for t in operands]
    pieces = []
    for index in itertools.product(*(range(group.size) for group in looped)):
        offsets = [sum(position * group.strides[j] for position, group in zip(index, looped)) for j in range(4)]
        views = [
            None if t is None else t.as_strided((o.size, i.size, x.shape[dim]),
                                                (o.strides[j], i.strides[j], reduced[j]),
                                                t.storage_offset() + offsets[j])
            for j, t in enumerate(operands)
        ]
        out_view = out.as_strided((o.size, i.size), (o.strides[3], i.strides[3]), out.storage_offset() + offsets[3])
        pieces.append(Piece(*views, out_view))
    return pieces
