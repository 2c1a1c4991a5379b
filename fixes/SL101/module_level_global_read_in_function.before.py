import torch

BLOCK = 64
SELECTED = torch.arange(BLOCK)[None, :].expand(32, BLOCK)


def selected_count(threshold: int):
    return (SELECTED < threshold).sum()
