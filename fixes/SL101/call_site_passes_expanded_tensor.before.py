import torch


def _count_active(mask):
    return (mask != 0).sum()


def route_tokens(token_mask, num_experts):
    per_expert = token_mask[:, None, :].expand(-1, num_experts, -1)
    active = _count_active(per_expert)
    return per_expert, active
