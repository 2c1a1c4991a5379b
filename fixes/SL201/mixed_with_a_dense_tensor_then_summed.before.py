import torch


def routed_blocks(gate_scores, self_blocks, heads: int):
    """The gate mask is dense (heads x blocks x blocks) and the self-block mask is one row
    repeated per head. The `&` mixes the broadcast with a full-size tensor, so its sum cannot be
    narrowed (no SL101); the waste is `~` over every copy of the self-block mask, which can run
    before the expand (SL201)."""
    self_mask = self_blocks[None].expand(heads, -1, -1)
    gate_mask = gate_scores > 0
    gate_mask = gate_mask & ~self_mask
    return gate_mask.sum()


def self_block_count(self_blocks, heads: int):
    """Only the broadcast reaches the sum: narrow and rescale it (SL101)."""
    self_mask = self_blocks[None].expand(heads, -1, -1)
    return (~self_mask).sum()
