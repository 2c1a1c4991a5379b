def active_gates(gates, n, by_row: bool):
    if by_row:
        s = gates.expand(n, -1)
    else:
        s = gates.unsqueeze(1).expand(-1, n)
    return (s != 0).sum()
