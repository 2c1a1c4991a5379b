last_mask = None


def count_and_keep(mask, rows: int):
    global last_mask
    last_mask = mask.expand(rows, -1) != 0
    return last_mask.sum()
