def density(mask):
    """Fraction of the non-zero entries of a mask.

    Args:
        mask: a tensor, possibly broadcast from a smaller shape.
    """
    return (mask != 0).float().mean()
