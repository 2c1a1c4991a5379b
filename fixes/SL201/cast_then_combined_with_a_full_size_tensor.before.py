# With `low-severity = true`: a cast whose only consumer also reads a full-size dense tensor,
# or takes it as a scatter's index, is output-sized (low severity); one whose consumer reads
# only numbers is a full finding.
import torch


def clamp_timesteps(t, cond_mask):
    """`torch.min` writes a cond_mask-sized result whatever the layout of `timestep`: casting
    the expand first costs one more buffer of that size, no more."""
    limit = torch.ones_like(cond_mask, dtype=torch.float32) * 1000.0
    timestep = t.expand(cond_mask.shape).float()
    return torch.min(timestep, limit)


def scaled_timesteps(t, cond_mask):
    """Only numbers meet the cast: cast before the expand and nothing is materialized."""
    timestep = t.expand(cond_mask.shape).float()
    return timestep * 2.0


def routed_counts(counts, expert_of_slot, extra: int):
    """The cast expand is the index of `scatter_add_`, as large as `counts` (its src): the op
    reads that many elements anyway."""
    out = torch.zeros_like(counts)
    route = expert_of_slot.unsqueeze(0).expand(extra, -1).to(torch.int64)
    out.scatter_add_(1, route, counts)
    return out
