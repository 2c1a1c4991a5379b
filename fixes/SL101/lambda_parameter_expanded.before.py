import torch

B, N = 8, 128
count_positive = lambda t: (t.expand(B, N) > 0).sum()
print(count_positive(torch.randn(B, 1)))
