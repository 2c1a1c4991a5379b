import torch


def expert_scales(scale, num_experts, quantize):
    # A 0-d scale expanded to one entry per expert: the copy is as small as that dim.
    per_expert = scale.expand(num_experts.shape[0]).contiguous()
    return quantize(per_expert)
