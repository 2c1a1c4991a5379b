import math
import torch


def _count_true(t, dim=None, rows=False):
    """`t.sum()` of a bool tensor (0-d int64, on t's device); with rows=True,
    how many rows along `dim` hold a True: `t.sum(dim).count_nonzero()`.
    Off the CPU, sum and count_nonzero first copy t to int64 (8 bytes an
    element), so count sixteenths of it in int32 there."""
    if rows and (dim is None or isinstance(dim, (tuple, list)) and not dim):
        t = t.any()
    elif rows and not (type(dim) is int and t.dim() and t.shape[dim] == 1):
        t = t.any(dim=dim)
    if t.device.type == "cpu" or t.dim() == 0:
        return torch.count_nonzero(t)
    d = max(range(t.dim()), key=t.size)
    total = t.new_zeros((), dtype=torch.int64)
    for part in t.split(max(1, t.size(d) // 16), d):
        total += part.sum(dtype=torch.int32 if part.numel() < 2**31 else None)
    return total


def suppressed(mask, n):
    m = mask.expand(n, -1)
    return (m != 0).sum()  # noqa: SL101


def other_code_does_not_suppress(mask, n):
    m = mask.expand(n, -1)
    m_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride()))
    m_small = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps)]
    return _count_true(m_small != 0) * math.prod(m_reps)  # noqa: SL102
