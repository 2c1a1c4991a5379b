import torch


def head_scales(token_scale, num_tokens, num_heads, out):
    rows = num_tokens * num_heads
    out.copy_(token_scale[:, None].expand(num_tokens, num_heads).reshape(rows))
    ids = torch.arange(num_heads).expand(num_tokens, num_heads).reshape(num_tokens * num_heads)
    return ids
