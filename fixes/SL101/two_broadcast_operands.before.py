def agreeing_positions(a, b, n):
    ea = a.expand(n, -1)
    eb = b.expand(n, -1)
    return (ea == eb).sum()
