def signed_product(choices, copies):
    c = choices.expand(copies, -1)
    return c.long().prod()
