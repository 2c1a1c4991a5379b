"""A project with `line-length = 79`: the narrowing and the rescaled expressions are broken
inside parentheses, as the formatter would break them; the lines around them are left as
they are. Where the narrowing written out would take more than three lines a statement,
the helper is pasted instead (its lines fit 79 columns)."""
import math
import torch


def _narrow_broadcast(*args):
    """The tensor args as views cut to one element on each dim they all
    repeat (stride 0, size > 1), and each dim's repeat count."""
    shaped = [isinstance(a, torch.Tensor) and a.dim() > 0 for a in args]
    views = torch.broadcast_tensors(*(a for a, s in zip(args, shaped) if s))
    dims = zip(views[0].shape, *(v.stride() for v in views)) if views else ()
    reps = tuple(n if n > 1 and not any(st) else 1 for n, *st in dims)
    index = tuple(slice(1) if r > 1 else slice(None) for r in reps)
    views = iter(views)
    out = [next(views)[index] if s else a for a, s in zip(args, shaped)]
    return (*out, reps)


def heads_with_tokens(attn_mask, batch_size: int, num_heads: int):
    attention = attn_mask.expand(batch_size, num_heads, -1)
    attention_small, attention_reps = _narrow_broadcast(attention)
    tokens_per_head = (attention_small != 0).sum(dim=-1) * attention_reps[-1]
    return (
        (tokens_per_head > 0).sum()
        * (math.prod(attention_reps) // attention_reps[-1])
    ) + (
        (tokens_per_head > 1).sum()
        * (math.prod(attention_reps) // attention_reps[-1])
    )


def rows_with_tokens(row_mask, batch_size: int):
    m = row_mask.expand(batch_size, -1)
    m_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(m.shape, m.stride())
    )
    m_small = m[tuple(slice(1) if r > 1 else slice(None) for r in m_reps)]
    return (
        (m_small != 0).any(dim=-1).sum() * (math.prod(m_reps) // m_reps[-1])
    ), m.dtype
