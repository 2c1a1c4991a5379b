def head_keep_mask(keep, heads: int):
    """(batch, heads, keys) view of a (batch, keys) bool mask: no copy."""
    return keep[:, None, :].expand(-1, heads, -1)


def kept_pairs(keep, heads: int):
    """Counts every logical element of the helper's expand: heads times the work."""
    return head_keep_mask(keep, heads).sum()
