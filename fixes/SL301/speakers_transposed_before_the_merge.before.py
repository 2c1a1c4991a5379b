import torch


class SpeakerGate(torch.nn.Module):
    """The encoder output copied once per speaker: the speaker dim is stride 0, a transpose
    puts it after the batch, and the reshape that merges the two copies speakers x batch x
    channels x frames. A transpose that keeps the speaker dim apart from the merge is a view."""

    def __init__(self, speakers: int):
        super().__init__()
        self.speakers = speakers
        self.gate = torch.nn.Conv1d(64, 64, 1)

    def forward(self, x, skip):
        batch, channels, frames = skip.shape
        per_speaker = skip.unsqueeze(0).expand(self.speakers, batch, channels, frames).transpose(0, 1)
        per_speaker = per_speaker.reshape(batch * self.speakers, channels, frames)
        return self.gate(x) * per_speaker

    def forward_split(self, skip):
        """The transpose swaps two dense dims: the speaker dim stays whole, a view."""
        batch, channels, frames = skip.shape
        per_speaker = skip.unsqueeze(0).expand(self.speakers, batch, channels, frames).transpose(2, 3)
        return per_speaker.reshape(self.speakers, batch, frames * channels).sum(0)
