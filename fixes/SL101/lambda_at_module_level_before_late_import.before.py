import torch

rows = torch.rand(16, 1) > 0.5
count = lambda: (rows.expand(16, 64) != 0).sum()
print(count())

import math  # noqa: E402

print(math.pi)
