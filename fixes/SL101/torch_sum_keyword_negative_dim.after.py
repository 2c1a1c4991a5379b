import torch


def longest_row(valid, copies):
    tiled = torch.broadcast_to(valid, (copies, *valid.shape))
    tiled_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(tiled.shape, tiled.stride())
    )
    tiled_small = tiled[tuple(slice(1) if r > 1 else slice(None) for r in tiled_reps)]
    return (torch.sum(tiled_small.int(), dim=-1) * tiled_reps[-1]).amax()
