"""A script: build a mask at top level, then count it."""
import math
import torch

batch, heads, keys = 4, 8, 16
keep = torch.rand(batch, 1, keys) > 0.5
mask = keep.expand(batch, heads, keys)
mask_reps = tuple(
    n if st == 0 and n > 1 else 1 for n, st in zip(mask.shape, mask.stride())
)
mask_small = mask[tuple(slice(1) if r > 1 else slice(None) for r in mask_reps)]
kept = (mask_small != 0).sum() * math.prod(mask_reps)
per_head = (mask != 0).sum(dim=1)
print(kept, per_head)
