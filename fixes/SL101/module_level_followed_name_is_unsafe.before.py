import torch

keep = torch.rand(16, 1) > 0.5
selected = keep.expand(16, 32) != 0
total = selected.sum()
print(total)
