import torch.nn.functional as F


def padded_attention(query, key, value, lengths, heads):
    # A key-padding mask expanded over heads and queries: attention turns the bool mask into
    # a float bias of batch x heads x queries x keys before it runs. Unexpanded, the
    # (batch, 1, 1, keys) mask broadcasts and nothing that size is made.
    batch, keys = query.shape[0], key.shape[-2]
    positions = lengths.new_ones(keys).cumsum(0)
    keep = positions[None, :] <= lengths[:, None]
    mask = keep[:, None, None, :].expand(batch, heads, query.shape[-2], keys)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=mask)


def padded_attention_positional(query, key, value, keep, heads):
    mask = (keep > 0)[:, None, None, :].expand(-1, heads, query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, mask, 0.0)


def additive_bias(query, key, value, bias, heads):
    # A float bias is read through its strides: nothing is materialized.
    mask = bias.float()[:, None, None, :].expand(-1, heads, query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=mask)


def mask_of_unknown_dtype(query, key, value, mask, heads):
    # The code does not show whether `mask` is bool or an additive float bias.
    mask = mask[:, None, None, :].expand(-1, heads, query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=mask)


def unexpanded(query, key, value, keep):
    return F.scaled_dot_product_attention(query, key, value, attn_mask=(keep > 0)[:, None, None, :])
