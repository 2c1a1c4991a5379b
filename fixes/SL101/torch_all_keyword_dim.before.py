import torch


def all_rows_valid(valid, heads):
    v = valid.unsqueeze(1).expand(-1, heads, -1)
    return torch.all(v != 0, dim=2).all()
