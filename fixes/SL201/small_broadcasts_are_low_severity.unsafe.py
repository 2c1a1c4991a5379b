# With `low-severity = true`: small broadcasts are reported, marked low severity.
import torch


def rope_rows(freqs):
    """Three rows of the same ids (mRoPE's t, h, w): at most 3 copies of ids that exist
    densely anyway: low severity."""
    rows = freqs[None, ...].expand(3, -1, -1)
    return rows[:, :, None, :].float()


def per_sample_scale(timestep, batch: int):
    """A 0-d timestep expanded to the batch: one dim's worth of values: low severity."""
    return timestep.float().expand(batch)


def many_copies(x, n: int):
    """A size the code does not spell as a few literal repeats: a full finding."""
    return x[None].float().expand(n, -1, -1)


def eight_copies(x):
    """Eight literal copies are more than a few: a full finding."""
    return x[None].float().expand(8, -1, -1)


def per_expert_scale(layer):
    """The smallest scale expanded to one value per expert: `num_local_experts` is named as a
    count, so the expand is one dim: low severity."""
    return layer.scale.min().float().expand(layer.num_local_experts)
