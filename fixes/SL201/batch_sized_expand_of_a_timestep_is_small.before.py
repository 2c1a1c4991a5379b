import torch


def time_embedding(timestep, batch, freqs):
    """A 0-d timestep expanded to the batch: `batch` names one number, so the expand holds
    `batch` numbers and its cast is low severity (hidden by default)."""
    times = torch.as_tensor(timestep, dtype=torch.float32).reshape(-1)
    times = times.expand(batch)
    phase = times.double()[:, None] * freqs
    return torch.cat((phase.cos(), phase.sin()), -1)


def time_embedding_grid(timestep, shape, freqs):
    """Expanded to a whole `shape`, it may be as large as the latents: reported."""
    times = torch.as_tensor(timestep, dtype=torch.float32).reshape(1, 1)
    times = times.expand(shape)
    return times.double() * freqs
