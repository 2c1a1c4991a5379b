import torch
from torch import nn


class TimestepEmbedder(nn.Module):
    """Sinusoids of each timestep, then two Linear layers of the hidden size."""

    def __init__(self, hidden: int, frequencies: int = 256) -> None:
        super().__init__()
        self.frequencies = frequencies
        self.mlp = nn.Sequential(nn.Linear(frequencies, hidden), nn.SiLU(), nn.Linear(hidden, hidden))

    def forward(self, t):
        half = self.frequencies // 2
        freqs = torch.exp(-torch.arange(half, dtype=torch.float32, device=t.device) / half)
        args = t[:, None].float() * freqs[None]
        return self.mlp(torch.cat([args.cos(), args.sin()], dim=-1))


class ImageDenoiser(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.embedders = nn.ModuleDict({"timestep": TimestepEmbedder(hidden)})
        self.time_embedder = TimestepEmbedder(hidden)
        self.modulation = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden))

    def add_time_per_token(self, t, image_embeds, token_h, token_w):
        """One timestep copied to every image token, then embedded: the two Linear layers run
        on token_h * token_w identical rows. Reported."""
        t_per_token = t.expand(token_h * token_w)
        embeddings = self.embedders["timestep"](t_per_token).view(1, token_h * token_w, -1)
        return image_embeds + embeddings

    def add_time_once(self, t, image_embeds):
        """Embedded once and broadcast by the add: the fix."""
        return image_embeds + self.time_embedder(t.reshape(1))[None]

    def add_time_per_sample(self, t, latents):
        """One timestep per batch row, the embedder's usual input: a few rows, not reported."""
        timesteps = t.expand(latents.shape[0])
        return latents + self.time_embedder(timesteps)[:, None, :]

    def modulate_per_token(self, t_emb, hidden_states):
        """One embedding row a sample copied to every token, then a Linear: it runs on
        seq_len identical rows a sample. Reported."""
        seq_len = hidden_states.shape[1]
        rows = t_emb.unsqueeze(1).expand(-1, seq_len, -1)
        return hidden_states * (1 + self.modulation(rows))

    def modulate_once(self, t_emb, hidden_states):
        """Modulated once a sample and broadcast by the product: the fix."""
        return hidden_states * (1 + self.modulation(t_emb)[:, None, :])
