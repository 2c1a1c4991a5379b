import torch


def head_slots(token_slots, num_tokens, num_heads, out):
    rows = num_tokens * num_heads
    out.copy_(token_slots[:, None].expand(num_tokens, num_heads).reshape(rows))
    ids = torch.arange(num_heads).expand(num_tokens, num_heads).reshape(num_tokens * num_heads)
    return ids
