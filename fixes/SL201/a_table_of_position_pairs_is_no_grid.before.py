import torch


def chunk_window_mask(hidden, heads: int, chunk: int, behind: int, ahead: int):
    """The distance between the chunks of every pair of frames is a frames x frames table,
    attention shaped: expanded over batch and heads, each comparison writes that many bools
    per batch row and head, where a position grid would be small."""
    batch, frames = hidden.shape[0], hidden.shape[1]
    chunk_of = torch.arange(frames, device=hidden.device) // chunk
    distance = chunk_of.unsqueeze(0) - chunk_of.unsqueeze(1)
    distance = distance.expand(batch, heads, frames, frames)
    return (distance >= -behind) & (distance <= ahead)


def pixel_offsets(hidden, height: int, width: int):
    """Two different vectors make a coordinate grid (height x width): repeated per batch row
    it stays small beside the activations, so it is not reported by default."""
    rows = torch.arange(height, device=hidden.device)
    cols = torch.arange(width, device=hidden.device)
    offsets = rows[:, None] * width + cols[None, :]
    return offsets.expand(hidden.shape[0], -1, -1).float()
