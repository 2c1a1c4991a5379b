# With `low-severity = true`: small broadcasts are reported, marked low severity.
"""A head mask of one value per head, copied for every layer and cast: layers x heads numbers
(low severity); a token vector copied per head_dim is an activation's size (a full finding)."""


def head_mask_per_layer(head_mask, num_hidden_layers, dtype):
    if head_mask.dim() == 1:
        head_mask = head_mask.unsqueeze(0).unsqueeze(0).unsqueeze(-1).unsqueeze(-1)
        head_mask = head_mask.expand(num_hidden_layers, -1, -1, -1, -1)
    return head_mask.to(dtype=dtype)


def token_weights_per_channel(weights, head_dim, dtype):
    return weights.unsqueeze(-1).expand(-1, head_dim).to(dtype)
