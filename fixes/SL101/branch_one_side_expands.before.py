def active_slots(slots, n, tile: bool):
    if tile:
        s = slots.expand(n, -1)
    else:
        s = slots
    return (s != 0).sum()
