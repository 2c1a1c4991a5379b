import torch


def add_key_bias(scores, keep):
    """Scores (n_queries, n_keys) plus 0 where keep (n_keys,) is set and -inf elsewhere."""
    visible = keep[None, :].expand(scores.shape[0], -1)
    return scores + torch.where(keep[None, :], 0.0, float("-inf")).expand_as(visible)
