def peak_channel_energy(x, batch):
    xb = x.unsqueeze(0).expand(batch, *x.shape)
    energy = xb.abs().nansum(dim=(0, 2))
    return energy.max()
