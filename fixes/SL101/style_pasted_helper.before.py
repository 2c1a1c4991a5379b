"""Without `helper-module`, a narrowing that needs the helper (a parameter that may not be
a tensor) pastes it into the module: about ten lines, once per module."""

import torch


def masked_count(mask: torch.Tensor) -> torch.Tensor:
    """Count the set entries of `mask`.

    Args:
        mask: a broadcastable mask.
    """
    return (mask != 0).sum()
