def busiest_after_update(score, indices, update):
    """The copy is scattered into before the sum: it no longer repeats the broadcast's
    values, so the sum cannot be narrowed (no SL101; the copy itself is a low-severity SL302)."""
    best, _ = score.max(-1, keepdim=True)
    best = best.expand_as(score).contiguous()
    best.scatter_(-1, indices, update)
    return best.sum(0)


def doubled_total(row, n: int):
    """A uniform in-place update keeps every copy equal: the sum is still narrowable."""
    rows = row[None].expand(n, -1).float()
    rows.mul_(2)
    return rows.sum(0)


def nearest_after_offsets(boxes, offsets, k: int):
    """An item write into the copy (`shifted[..., 0] += offsets`, offsets per copy) changes
    some positions: the min cannot be narrowed (no SL101)."""
    shifted = boxes[:, None, :].expand(-1, k, 4).clone()
    shifted[..., 0] += offsets
    return shifted.min(dim=1).values
