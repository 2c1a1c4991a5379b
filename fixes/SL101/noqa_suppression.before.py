def suppressed(mask, n):
    m = mask.expand(n, -1)
    return (m != 0).sum()  # noqa: SL101


def other_code_does_not_suppress(mask, n):
    m = mask.expand(n, -1)
    return (m != 0).sum()  # noqa: SL102
