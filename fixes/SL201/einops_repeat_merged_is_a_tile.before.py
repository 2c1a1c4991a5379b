import torch
from einops import repeat


def repeat_kv(keys, groups):
    """(b, s, h * g, d) keys for grouped-query attention: the output group `(h g)` merges the
    new axis, so einops copies (SL302's: returned dense); the result is dense and its cast
    materializes nothing broadcast."""
    wide = repeat(keys, "b s h d -> b s (h g) d", g=groups)
    return wide.float()
