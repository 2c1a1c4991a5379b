import torch


def masked_logits(logits, keep):
    """Zero the logits (rows, cols) where keep (cols,) is False."""
    keep_rows = keep[None, :].expand(logits.shape[0], -1)
    zeros = torch.zeros_like(keep[None, :], dtype=logits.dtype).expand_as(keep_rows)
    return torch.where(keep_rows, logits, zeros)
