import torch


def mean_gap(x, y):
    a, b = torch.broadcast_tensors(x, y)
    a_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(a.shape, a.stride()))
    a_small = a[tuple(slice(1) if r > 1 else slice(None) for r in a_reps)]
    b_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(b.shape, b.stride()))
    b_small = b[tuple(slice(1) if r > 1 else slice(None) for r in b_reps)]
    return a_small.mean() - b_small.mean()
