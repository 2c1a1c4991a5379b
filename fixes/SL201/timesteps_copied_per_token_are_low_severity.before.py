import torch


def per_token_timesteps(latents, timestep, frames: int):
    """One timestep per sample and frame, repeated for every token of the frame: B x tokens
    numbers, not activations. The cast is low severity."""
    b, _, tokens = latents.shape
    per_token = timestep[:, :, None].expand(b, frames, tokens // frames)
    return per_token.to(latents.dtype).reshape(b, -1)


def per_token_embedding(latents, temb, tokens: int):
    """An embedding of the timestep (B x hidden) is activations: its copy per token stays a
    finding."""
    per_token = temb[:, None, :].expand(-1, tokens, -1)
    return per_token.to(latents.dtype)
