import math
import torch


def count_valid(lengths, max_len):
    positions = torch.arange(max_len, device=lengths.device)
    valid = positions.expand(lengths.numel(), max_len)
    valid_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(valid.shape, valid.stride())
    )
    valid_small = valid[tuple(slice(1) if r > 1 else slice(None) for r in valid_reps)]
    return (valid_small < 7).sum() * math.prod(valid_reps)
