from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


def count(mask: torch.Tensor, rows: int):
    return (mask.expand(rows, -1) != 0).sum()
