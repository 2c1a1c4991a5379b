def per_mask_counts(masks, rows: int):
    m = masks[0].expand(rows, -1)
    first = (m != 0).sum()
    return first, [(m != 0).sum() for m in masks]
