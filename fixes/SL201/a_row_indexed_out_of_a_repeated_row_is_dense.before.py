import torch


def per_sample_bias(token_kinds, batch_size: int, seq_len: int, dtype):
    """`token_kinds[b]` picks one row of rows that repeat one row: the row itself, dense,
    so casting it copies seq_len numbers once. Not reported."""
    if token_kinds.shape[0] == 1 and batch_size > 1:
        token_kinds = token_kinds.expand(batch_size, -1)
    biases = []
    for b in range(batch_size):
        bias = torch.zeros(seq_len, seq_len, dtype=dtype)
        is_prefix = token_kinds[b].bool()
        bias[is_prefix, :] = 0
        biases.append(bias)
    return torch.stack(biases)


def per_head_rows(token_kinds, heads: int):
    """Indexing the batch away leaves the head dim stride 0: the cast copies it per head."""
    per_head = token_kinds[:, None].expand(-1, heads, -1)
    return per_head[0].bool()
