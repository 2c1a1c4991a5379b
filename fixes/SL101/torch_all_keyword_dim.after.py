import torch


def all_rows_valid(valid, heads):
    v = valid.unsqueeze(1).expand(-1, heads, -1)
    v_reps = tuple(n if st == 0 and n > 1 else 1 for n, st in zip(v.shape, v.stride()))
    v_small = v[tuple(slice(1) if r > 1 else slice(None) for r in v_reps)]
    return torch.all(v_small != 0, dim=2).all()
