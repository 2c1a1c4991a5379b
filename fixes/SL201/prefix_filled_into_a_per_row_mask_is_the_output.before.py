import torch


def prefix_lm_mask(hidden, prefix_len, batch, seq):
    # A causal mask repeated per row, then a per-row prefix filled in: the prefix varies along
    # the dim the first expand grew, the mask along the dim the second one grew. The result
    # differs at every position; it is the batch x seq x seq mask itself, nothing to hoist.
    causal = torch.tril(hidden.new_ones((1, seq, seq)))
    causal = causal.expand(batch, -1, -1)
    ids = torch.arange(seq, device=hidden.device).view(1, -1)
    in_prefix = ids < prefix_len.view(-1, 1)
    return causal.masked_fill(in_prefix.unsqueeze(1).expand_as(causal), 1)


def prefix_shared_by_rows(hidden, prefix, batch, seq):
    # Both grown along dim 0: the fill repeats per row, worth doing once before the expand.
    causal = torch.tril(hidden.new_ones((1, seq, seq)))
    causal = causal.expand(batch, -1, -1)
    return causal.masked_fill(prefix.unsqueeze(0).expand_as(causal), 1)
