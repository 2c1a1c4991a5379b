# With `low-severity = true`: a cast expand that becomes the index of a scatter is as large as
# what the scatter reads anyway (low severity); one whose consumer reads a dense tensor of
# unknown size, or only numbers, is a full finding.
import torch


def routed_counts(counts, expert_of_slot, extra: int):
    """The cast expand is the index of `scatter_add_`, as large as `counts` (its src): the op
    reads that many elements anyway."""
    out = torch.zeros_like(counts)
    route = expert_of_slot.unsqueeze(0).expand(extra, -1).to(torch.int64)
    out.scatter_add_(1, route, counts)
    return out


def clamp_timesteps(t, cond_mask):
    """`limit` is dense, but a dense tensor may be small (a 0-d `torch.tensor(1.0)`): the cast
    still counts as a full materialization."""
    limit = torch.ones_like(cond_mask, dtype=torch.float32) * 1000.0
    timestep = t.expand(cond_mask.shape).float()
    return torch.min(timestep, limit)


def scaled_timesteps(t, cond_mask):
    """Only numbers meet the cast: cast before the expand and nothing is materialized."""
    timestep = t.expand(cond_mask.shape).float()
    return timestep * 2.0
