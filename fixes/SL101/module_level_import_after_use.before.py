import torch

mask = torch.ones(4, 1, dtype=torch.bool).expand(4, 8)
count = (mask != 0).sum()

import math  # noqa: E402 - a late import: the fix cannot use it where `count` is computed

print(count, math.pi)
