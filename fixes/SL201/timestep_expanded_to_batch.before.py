import torch


def timestep_weight(latents, t):
    # A 0-d timestep expanded to the batch is a (B,) tensor: materializing it costs B
    # elements, nothing worth a finding (size-aware findings).
    timestep = t.expand(latents.shape[0])
    return (timestep * 2).sum()


def guidance_count(latents, guidance):
    return (guidance.expand(latents.size(0)) > 0).sum()
