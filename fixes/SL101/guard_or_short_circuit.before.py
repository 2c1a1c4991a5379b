def all_rows_set(mask, rows: int):
    return mask.numel() == 0 or bool((mask.expand(rows, -1) != 0).all())
