import torch.nn.functional as F


def attend(query, key, value, mask=None):
    """The one attention call of the model.

    ``query``, ``key`` and ``value`` are ``[B, H, N, D]``. ``mask`` is a boolean key-padding
    mask ``[B, K]``, True where a key is valid; it is expanded to ``[B, H, Q, K]`` when given.
    """
    attn_mask = None
    if mask is not None:
        attn_mask = mask[:, None, None, :].expand(query.shape[0], query.shape[1], query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)


def attend_with_bias(query, key, value, bias):
    """``bias`` is an additive float mask ``[B, K]``, read through its strides."""
    attn_mask = bias[:, None, None, :].expand(query.shape[0], query.shape[1], query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)


def attend_either(query, key, value, mask):
    """Args:
        mask (Tensor): a bool or float mask of shape ``[B, K]``.
    """
    attn_mask = mask[:, None, None, :].expand(query.shape[0], query.shape[1], query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)
