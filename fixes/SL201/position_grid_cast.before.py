import torch


def frame_positions(frames: int, tokens_per_frame: int):
    """Temporal position of every token: a grid from `arange`, scaled and cast. The grid is the
    output; it is one value per token, small beside the activations: not reported."""
    t = torch.arange(frames).view(-1, 1).expand(-1, tokens_per_frame)
    return (t * 2 + 1).long().flatten()


def frame_features(features, frames: int):
    """A feature map repeated per frame, then cast: reported."""
    per_frame = features.unsqueeze(0).expand(frames, -1, -1)
    return per_frame.half()
