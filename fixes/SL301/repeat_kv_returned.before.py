import torch


def repeat_kv(hidden_states, n_rep):
    """The caller gets a dense (batch, heads * n_rep, seq, dim) tensor: the copy is needed."""
    batch, heads, seq, dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, heads, n_rep, seq, dim)
    return hidden_states.reshape(batch, heads * n_rep, seq, dim)
