import torch
from einops import repeat


def decay_rates(a_log, head_dim: int, state_size: int):
    """A state-space step's decay per head, repeated over head_dim and the state. `a` is
    float32 (`.float()` of the log, then exp and negation keep it), and einops moves its
    elements without changing them: the cast returns the repeat itself. No finding."""
    a = -torch.exp(a_log.float())
    return repeat(a, "h -> h p n", p=head_dim, n=state_size).to(dtype=torch.float32)


def decay_rates_half(a_log, head_dim: int, state_size: int):
    """The same repeat cast to half: a copy of every repeated element."""
    a = -torch.exp(a_log.float())
    return repeat(a, "h -> h p n", p=head_dim, n=state_size).to(dtype=torch.float16)
