import torch


def union_areas(boxes_a, boxes_b, inter):
    """Each area grows along a different dim: the sum is an outer sum, the (N, M) union the
    caller wants, with nothing repeated to hoist."""
    n, m = boxes_a.shape[0], boxes_b.shape[0]
    area_a = ((boxes_a[:, 2] - boxes_a[:, 0]) * (boxes_a[:, 3] - boxes_a[:, 1])).view(-1, 1).expand(n, m)
    area_b = ((boxes_b[:, 2] - boxes_b[:, 0]) * (boxes_b[:, 3] - boxes_b[:, 1])).view(1, -1).expand(n, m)
    return inter / (area_a + area_b - inter)


def domain_mix(weights, table, batch: int, domains: int):
    """An outer product summed over the shared dim: an einsum, no broadcast to narrow."""
    mixed = weights.view(batch, domains, 1).expand(batch, domains, 512) * table.view(
        1, domains, 512
    ).expand(batch, domains, 512)
    return mixed.sum(dim=1)


def shared_dim(row, col, n: int, m: int):
    """Both grow dim 0: the sum repeats one row n times; hoist it."""
    return (row.view(1, -1).expand(n, m) + col.view(1, -1).expand(n, m)).float()
