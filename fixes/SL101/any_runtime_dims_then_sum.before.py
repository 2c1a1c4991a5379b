def rows_with_any_hit(hits, dims, copies):
    h = hits.expand(copies, -1)
    return (h != 0).any(dim=dims).sum()
