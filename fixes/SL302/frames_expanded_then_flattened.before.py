import torch


def frame_embeddings(table, frames, dim):
    """One frame's (tokens, dim) embeddings repeated over `frames` frames: the reshape merges
    the stride-0 frame dim with the token dim, a copy frames times the table."""
    one = table.reshape(1, -1, dim)
    return one.expand(frames, -1, -1).reshape(-1, dim)
