# With `low-severity = true`: small broadcasts are reported, marked low severity.
"""A rotary table built once per resolution and kept on the module: the work after the cache
check runs once per key (low severity); the same table rebuilt on every call is a full finding."""
import torch


class CachedRotary:
    def __init__(self, dim):
        self.dim = dim
        self._key = None
        self._value = None

    def forward(self, height, width, device):
        key = (height, width, device)
        if self._key == key and self._value is not None:
            return self._value
        inv = 1.0 / (10000 ** (torch.arange(0, self.dim, 2, device=device) / self.dim))
        rows = torch.outer(torch.arange(height, device=device), inv).unsqueeze(1).expand(height, width, -1)
        cols = torch.outer(torch.arange(width, device=device), inv).unsqueeze(0).expand(height, width, -1)
        freqs = torch.cat([rows, cols], dim=-1).reshape(height * width, -1)
        self._key, self._value = key, (freqs.cos(), freqs.sin())
        return self._value


class Rotary:
    def __init__(self, dim):
        self.dim = dim

    def forward(self, height, width, device):
        inv = 1.0 / (10000 ** (torch.arange(0, self.dim, 2, device=device) / self.dim))
        rows = torch.outer(torch.arange(height, device=device), inv).unsqueeze(1).expand(height, width, -1)
        cols = torch.outer(torch.arange(width, device=device), inv).unsqueeze(0).expand(height, width, -1)
        freqs = torch.cat([rows, cols], dim=-1).reshape(height * width, -1)
        return freqs.cos(), freqs.sin()
