import torch
import torch.nn.functional as F


def attend_and_zero_padding(query, key, value, mask=None):
    """`mask` is a [B, K] key mask. masked_fill below takes bool masks only, so it is bool, here
    too: SDPA turns the expanded copy into a float bias of B x H x Q x K."""
    attn_mask = None
    if mask is not None:
        attn_mask = mask[:, None, None, :].expand(-1, query.shape[1], query.shape[-2], -1)
    out = F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)
    if mask is not None:
        mask = mask[:, None, :, None].transpose(2, 3)
        out = out.masked_fill(~mask.transpose(2, 3), 0.0)
    return out


def attend_with_weights(query, key, value, mask, weights):
    """`mask` is used with `torch.where`, which still takes uint8 conditions: its dtype is not
    shown, and no finding is made."""
    attn_mask = mask[:, None, None, :].expand(-1, query.shape[1], query.shape[-2], -1)
    out = F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)
    return torch.where(mask[:, None, :, None], out, weights)
