import math
import torch


def _repeated_sum(t, repeats, *args, **kwargs):
    """`t.sum(...) * repeats`, float16/bfloat16 summed in float32 and
    rounded once, as the sum over every repeated copy would be."""
    if t.dtype in (torch.float16, torch.bfloat16) and "dtype" not in kwargs:
        total = t.sum(*args, dtype=torch.float32, **kwargs)
        return (total * repeats).to(t.dtype)
    return t.sum(*args, **kwargs) * repeats


def suppressed(weights, rows):
    w = weights.expand(rows, -1)
    return w.sum()  # stridelint: ignore[SL102]


def other_code_does_not_suppress(weights, rows):
    w = weights.expand(rows, -1)
    w_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(w.shape, w.stride()))
    w_small = w[tuple(slice(1) if r > 1 else slice(None) for r in w_reps)]
    return _repeated_sum(w_small, math.prod(w_reps))  # stridelint: ignore[SL101]
