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


def active_gates(gates, n, by_row: bool):
    if by_row:
        s = gates.expand(n, -1)
    else:
        s = gates.unsqueeze(1).expand(-1, n)
    s_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(s.shape, s.stride()))
    s_small = s[tuple(slice(1) if r > 1 else slice(None) for r in s_reps)]
    return _count_true(s_small != 0) * math.prod(s_reps)
