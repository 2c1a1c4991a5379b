import torch


def prepend_registers(self, patches, dtype):
    """Register tokens expanded over the batch and cast go straight into `torch.cat`, which
    writes them at that size anyway: not reported."""
    batch = patches.shape[0]
    registers = self.registers.unsqueeze(0).expand(batch, -1, -1).to(dtype)
    return torch.cat([registers, patches], dim=1)


def scaled_registers(self, patches, dtype):
    """Here the cast result is also returned on its own: a real extra copy, reported."""
    batch = patches.shape[0]
    registers = self.registers.unsqueeze(0).to(dtype).expand(batch, -1, -1)
    return torch.cat([registers, patches], dim=1), registers
