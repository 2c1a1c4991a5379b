import torch


def rotary_angles(positions, head_dim: int, base: float = 10000.0):
    """Angles of rotary embeddings. `inv_freq` is built in float32 and `.float()` of its
    expand returns the expand itself (a cast to the dtype a tensor has is no copy): nothing to
    report, through the division by Python numbers and the device move alike."""
    exponents = torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim
    inv_freq = 1.0 / (base**exponents)
    inv_freq_grid = inv_freq[None, :, None].expand(positions.shape[0], -1, 1).to(positions.device)
    angles = inv_freq_grid.float() @ positions[:, None, :].float()
    return angles.transpose(1, 2)


def rotary_angles_half(positions, head_dim: int):
    """The same expand cast to half: a real copy of every logical element."""
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    inv_freq_grid = inv_freq[None, :, None].expand(positions.shape[0], -1, 1)
    return inv_freq_grid.half() @ positions[:, None, :].half()
