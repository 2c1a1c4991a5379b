import torch


def sample_directions(ray_dirs, batch, rays, samples, field):
    # One view direction per ray, repeated for each sample along it: three numbers a sample
    # point, small beside the features the field computes per point.
    dirs = ray_dirs[:, :, None, :].expand(batch, rays, samples, 3)
    return field(dirs.reshape(-1, 3))


def sample_directions_kept(ray_dirs, batch, samples, field):
    # The same through kept dims: the reshape spells the three coordinates.
    return field(ray_dirs.unsqueeze(-2).expand(-1, -1, samples, -1).reshape(batch, -1, 3))


def features_per_sample(ray_feats, batch, samples, field):
    # Features, not coordinates: a full finding.
    return field(ray_feats.unsqueeze(-2).expand(-1, -1, samples, -1).reshape(batch, -1, 64))
