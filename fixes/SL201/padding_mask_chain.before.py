"""The classic attention padding mask: expand, cast, invert, fill."""

import torch


def _expand_mask(mask, dtype, tgt_len=None):
    """Expand a (bsz, src_len) padding mask to an additive (bsz, 1, tgt_len, src_len) bias."""
    bsz, src_len = mask.size()
    tgt_len = tgt_len if tgt_len is not None else src_len
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted_mask = 1.0 - expanded_mask
    return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)
