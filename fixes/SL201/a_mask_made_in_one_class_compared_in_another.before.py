import torch
from torch import nn


class DecoderLayer(nn.Module):
    """Compares the distance it is given: when the caller expanded it over batch and heads,
    each comparison writes batch x heads x frames x frames bools."""

    def __init__(self, behind: int, ahead: int):
        super().__init__()
        self.behind = behind
        self.ahead = ahead

    def forward(self, hidden, gate, distance=None):
        allowed = (distance >= -float(self.behind)) & (distance <= float(self.ahead))
        attended = nn.functional.scaled_dot_product_attention(hidden, hidden, hidden, attn_mask=allowed)
        return attended * gate


class Decoder(nn.Module):
    """The distance between chunks is made once, in a method, expanded to every batch row and
    head; the blocks of a ModuleList receive it by keyword."""

    def __init__(self, depth: int, heads: int, chunk: int):
        super().__init__()
        self.heads = heads
        self.chunk = chunk
        self.layers = nn.ModuleList()
        for index in range(depth):
            self.layers.append(DecoderLayer(index % 2, 1))

    def _chunk_distance(self, hidden, scores):
        batch, frames = hidden.shape[0], hidden.shape[1]
        chunk_of = scores.argmax(-1).float() / self.chunk
        distance = chunk_of[None, :] - chunk_of[:, None]
        return distance.expand(batch, self.heads, frames, frames)

    def forward(self, hidden, gate, scores):
        distance = self._chunk_distance(hidden, scores)
        for layer in self.layers:
            hidden = layer(hidden, gate, distance=distance)
        return hidden
