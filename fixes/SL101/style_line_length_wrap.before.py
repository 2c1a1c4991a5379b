"""A project with `line-length = 79`: the narrowing and the rescaled expressions are broken
inside parentheses, as the formatter would break them; the lines around them are left as
they are. Where the narrowing written out would take more than three lines a statement,
the helper is pasted instead (its lines fit 79 columns)."""


def heads_with_tokens(attn_mask, batch_size: int, num_heads: int):
    attention = attn_mask.expand(batch_size, num_heads, -1)
    tokens_per_head = (attention != 0).sum(dim=-1)
    return (tokens_per_head > 0).sum() + (tokens_per_head > 1).sum()


def rows_with_tokens(row_mask, batch_size: int):
    m = row_mask.expand(batch_size, -1)
    return (m != 0).any(dim=-1).sum(), m.dtype
