import torch


def per_token_lengths(context_lens, bs: int, block: int):
    """Lengths repeated per token of a block: integer metadata, a value per token."""
    return (context_lens + block).view(bs, 1).expand(bs, block).reshape(-1)


def request_of_each_token(req_ids, tokens_per_req: int):
    """Request ids repeated per token: the per-token index the code wants."""
    req_ids_2d = req_ids[:, None].expand(-1, tokens_per_req)
    return req_ids_2d.reshape(-1)


def slot_per_head(token_slots, num_heads: int):
    """A slot index per (token, head): metadata, not activations."""
    return token_slots[:, None].expand(-1, num_heads).flatten()


def hidden_per_head(hidden, num_heads: int):
    """Activations repeated per head are no metadata: reported."""
    return hidden[:, None].expand(-1, num_heads, -1).flatten(0, 1)
