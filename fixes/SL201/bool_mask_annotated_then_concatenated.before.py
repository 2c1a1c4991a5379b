import torch
import torch.nn.functional as F


def joint_attention(query, key, value, heads, mask: bool["b n"], text_mask: bool["b m"] | None = None):
    """Both key masks are annotated bool; joined along the keys they stay bool, and SDPA turns
    the expanded copy into a float bias of B x H x Q x K."""
    if text_mask is not None:
        mask = torch.cat([mask, text_mask], dim=1)
    attn_mask = mask[:, None, None, :].expand(-1, heads, query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)


def padded_attention(query, key, value, heads, mask: bool["b n"], text_len: int):
    """Padding keeps the mask's dtype."""
    attn_mask = F.pad(mask, (0, text_len), value=True)
    attn_mask = attn_mask[:, None, None, :].expand(-1, heads, query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)


def bias_attention(query, key, value, heads, bias: float["b n"], text_bias: float["b m"]):
    """A float bias is read through its strides: no finding."""
    bias = torch.cat([bias, text_bias], dim=1)
    attn_mask = bias[:, None, None, :].expand(-1, heads, query.shape[-2], -1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)
