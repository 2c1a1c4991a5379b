import torch


def demo_mask(rows, cols):
    return torch.rand(rows, 1) > 0.5


if __name__ == "__main__":
    mask = demo_mask(8, 32).expand(8, 32)
    if mask.any():
        print("rows kept:", (mask.int() > 0).sum(dim=0))
