def active_gates(gates, n, tile: bool):
    if tile:
        s = gates.expand(n, -1)
    else:
        s = gates
    return (s != 0).sum()
