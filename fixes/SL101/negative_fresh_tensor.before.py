import torch


def fresh(n):
    m = torch.randint(0, 3, (n, n))
    return (m != 0).sum()


def outer(x, y):
    return (x[:, None] < y[None, :]).sum()


def not_a_tensor(path, match):
    return (len(path.expanduser()) > 0) + len(match.expand(r"\1"))
