import torch


def total_log_partition(logits, copies):
    lb = logits.expand(copies, -1)
    return torch.logsumexp(lb, dim=-1).sum()
