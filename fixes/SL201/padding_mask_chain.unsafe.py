"""The classic attention padding mask: expand, cast, invert, fill."""

import torch


def _expand_mask(mask, dtype, tgt_len=None):
    """Expand a (bsz, src_len) padding mask to an additive (bsz, 1, tgt_len, src_len) bias."""
    bsz, src_len = mask.size()
    tgt_len = tgt_len if tgt_len is not None else src_len
    expanded_mask = mask[:, None, None, :].to(dtype).expand(bsz, 1, tgt_len, src_len)
    inverted_mask = (1.0 - mask[:, None, None, :].to(dtype)).expand_as(expanded_mask)
    return (1.0 - mask[:, None, None, :].to(dtype)).masked_fill((1.0 - mask[:, None, None, :].to(dtype)).to(torch.bool), torch.finfo(dtype).min).expand_as(inverted_mask)
