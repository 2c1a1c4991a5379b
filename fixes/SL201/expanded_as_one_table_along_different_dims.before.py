import torch


def overlap_ratio(boxes_a, boxes_b, inter):
    # `inter` is the A x B table of overlaps. Each area vector is expanded as that table
    # after a size-1 dim inserted at another place: their sum differs at every position,
    # it is the union itself, no waste to hoist.
    area_a = (boxes_a[:, 2] - boxes_a[:, 0]) * (boxes_a[:, 3] - boxes_a[:, 1])
    area_b = (boxes_b[:, 2] - boxes_b[:, 0]) * (boxes_b[:, 3] - boxes_b[:, 1])
    area_a = area_a.unsqueeze(1).expand_as(inter)
    area_b = area_b.unsqueeze(0).expand_as(inter)
    return inter / (area_a + area_b - inter)


def shared_row(weights_a, weights_b, table):
    # Both rows are inserted at dim 0: their sum repeats along it, worth doing first.
    row_a = weights_a.unsqueeze(0).expand_as(table)
    row_b = weights_b[None].expand_as(table)
    return table * (row_a + row_b)
