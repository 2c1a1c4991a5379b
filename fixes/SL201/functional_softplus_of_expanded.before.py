import torch
from torch.nn import functional as F


def gate_scale(gate, hidden):
    """Scale hidden (tokens, dim) by softplus of a per-channel gate (dim,), kept per token."""
    tokens, dim = hidden.shape
    weight = F.softplus(gate[None, :].expand(tokens, dim))
    return hidden * weight
