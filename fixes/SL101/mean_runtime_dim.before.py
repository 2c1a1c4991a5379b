def worst_coverage(mask, dim, copies):
    m = mask.expand(copies, -1)
    return m.float().mean(dim).min()
