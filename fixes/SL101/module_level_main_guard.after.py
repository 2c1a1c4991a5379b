import torch


def demo_mask(rows, cols):
    return torch.rand(rows, 1) > 0.5


if __name__ == "__main__":
    mask = demo_mask(8, 32).expand(8, 32)
    mask_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(mask.shape, mask.stride())
    )
    mask_small = mask[tuple(slice(1) if r > 1 else slice(None) for r in mask_reps)]
    if mask_small.any():
        print("rows kept:", (mask.int() > 0).sum(dim=0))
