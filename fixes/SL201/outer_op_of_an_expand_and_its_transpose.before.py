import torch


def pairwise_overlap(areas, classes, inter):
    """`a + a.transpose(1, 0)` over the two dims `a` may be broadcast along: each operand
    varies along the dim the other repeats, so every pair gets its own value (an outer sum,
    an outer comparison), the output itself. Not reported."""
    n = len(classes)
    a = areas.expand(n, n)
    union = a + a.transpose(1, 0) - inter
    c = classes.expand(n, n)
    same_class = c == c.transpose(1, 0)
    return (inter / union).triu(diagonal=1) * same_class


def batched_overlap(areas, n: int):
    """Grown along a third dim too: both operands repeat along dim 0, the sum is a real
    copy per batch. Reported."""
    a = areas.expand(4, n, n)
    return a + a.transpose(1, 2)
