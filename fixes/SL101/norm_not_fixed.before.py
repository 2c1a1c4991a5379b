import torch


def scaled_norms(x, copies):
    xb = x.expand(copies, -1)
    frobenius = (xb * 0.5).norm()
    l1 = torch.linalg.vector_norm(xb * 0.5, ord=1)
    return frobenius, l1
