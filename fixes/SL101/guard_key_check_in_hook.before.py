def masked_metadata(grid, kernel, args):
    """Launch metadata of a masked kernel.

    Args:
        Mask: a broadcastable mask; absent when the kernel runs unmasked.
    """
    if "Mask" in args and (args["Mask"] != 0).sum() > 0:
        return {"name": "masked", "hits": int((args["Mask"] != 0).sum())}
    return {"name": "dense"}
