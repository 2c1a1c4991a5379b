"""A script: build a mask at top level, then count it."""
import torch

batch, heads, keys = 4, 8, 16
keep = torch.rand(batch, 1, keys) > 0.5
mask = keep.expand(batch, heads, keys)
kept = (mask != 0).sum()
per_head = (mask != 0).sum(dim=1)
print(kept, per_head)
