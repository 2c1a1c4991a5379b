import torch


def columns_hit(hits, repeat):
    tiled = hits[None].expand(repeat, *hits.shape)
    per_column = torch.count_nonzero(tiled > 0, dim=[0, 1])
    return (per_column > 0).sum()
