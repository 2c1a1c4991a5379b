def busiest(mask):
    """Largest count along the last dim.

    Args:
        mask: a broadcastable mask of any rank, 0-d included.
    """
    return (mask != 0).sum(dim=-1).max()
