def active_slots(slots, n, by_row: bool):
    if by_row:
        s = slots.expand(n, -1)
    else:
        s = slots.unsqueeze(1).expand(-1, n)
    return (s != 0).sum()
