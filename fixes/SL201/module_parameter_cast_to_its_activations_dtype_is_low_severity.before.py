import torch
from torch import nn


class NullPrompt(nn.Module):
    """A learned prompt used when none is given: the module's own parameter, cast to the dtype
    the caller reads from its activations. In a model run in one dtype the cast returns the
    parameter itself (low severity)."""

    def __init__(self, length: int, channels: int):
        super().__init__()
        self.null_prompt = nn.Parameter(torch.zeros(length, channels))
        self.sinusoids = torch.randn(length, channels)  # a plain tensor: not cast with the module
        self.proj = nn.Linear(channels, channels)

    def forward(self, prompt, *, batch: int, dtype: torch.dtype):
        if prompt is None:
            prompt = self.null_prompt.unsqueeze(0).expand(batch, -1, -1)
        return self.proj(prompt.to(dtype=dtype))

    def upcast(self, hidden):
        # `.float()` names its dtype: an upcast of bf16 weights copies them, batch times over.
        return self.null_prompt[None].expand(hidden.shape[0], -1, -1).float() + hidden

    def table(self, hidden):
        # a plain tensor attribute keeps the dtype it was made in, whatever the model's
        return self.sinusoids[None].expand(hidden.shape[0], -1, -1).to(hidden.dtype) * hidden


class PaddingSlots(nn.Module):
    """Optional learned slots tiled over the sequence, then over the batch."""

    def __init__(self, slots: int, width: int, learned: bool):
        super().__init__()
        self.slots = None
        if learned:
            self.slots = nn.Parameter(torch.rand(slots, width))

    def forward(self, hidden, keep):
        batch, length, _ = hidden.shape
        tiled = self.slots.unsqueeze(0).expand(length // self.slots.shape[0], -1, -1)
        tiled = tiled.reshape(length, -1)
        per_row = tiled.unsqueeze(0).expand(batch, -1, -1)
        return torch.where(keep, hidden, per_row.type_as(hidden))
