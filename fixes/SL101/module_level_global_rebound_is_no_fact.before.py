import torch

SELECTED = torch.arange(64)[None, :].expand(32, 64)
SELECTED = SELECTED.contiguous()


def selected_count(threshold: int):
    return (SELECTED < threshold).sum()
