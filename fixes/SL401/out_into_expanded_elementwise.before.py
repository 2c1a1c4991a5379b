import torch


def shifted(x, row):
    out = row[None, :].expand(x.shape[0], -1)
    torch.add(x, 1, out=out)
    means = torch.zeros(1, dtype=x.dtype).expand(x.shape[0])
    torch.mean(x, 1, out=means)
    return out, means
