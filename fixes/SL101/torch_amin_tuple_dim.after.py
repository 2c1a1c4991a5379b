import torch


def min_margin(scores, copies, threshold: float):
    s = scores.expand(copies, *scores.shape)
    s_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(s.shape, s.stride()))
    s_small = s[tuple(slice(1) if r > 1 else slice(None) for r in s_reps)]
    return torch.amin(s_small - threshold, dim=(1, 2)).min()
