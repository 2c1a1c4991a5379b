import torch
from einops import repeat


def repeat_kv(keys, groups):
    """(b, s, h * g, d) keys for grouped-query attention: the output group `(h g)` merges the
    new axis, so einops copies; the result is dense and nothing is broadcast afterwards."""
    wide = repeat(keys, "b s h d -> b s (h g) d", g=groups)
    return wide.float()
