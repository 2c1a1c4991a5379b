import torch


def clear(scores_row, rows, pad):
    scores = scores_row[None, :].expand(rows, -1)
    scores.masked_fill_(pad, float("-inf"))
    scores.index_fill_(1, torch.tensor([0]), 0.0)
    scores[pad] = 0.0
    return scores


def clear_first_columns(scores_row, rows):
    scores = scores_row[None, :].expand(rows, -1)
    scores[:, torch.tensor([0, 1])] = 0.0
    return scores
