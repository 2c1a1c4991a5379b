import torch


def row_sums(x):
    """Every output element is one memory location: the sums come out wrong, silently."""
    out = torch.zeros(1, dtype=x.dtype).expand(x.shape[0])
    torch.sum(x, 1, out=out)
    return out
