import torch


def rotary(cache, positions, x):
    """Ruff's private-member code `SLF001` shares the `SL` letters: not a stridelint code."""
    table = cache._table_for(x.dtype)  # noqa: SLF001
    cos_sin = table[positions]
    cos, sin = cos_sin.chunk(2, dim=-1)  # noqa: SL201
    return x * cos + x.roll(1, -1) * sin
