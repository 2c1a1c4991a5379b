import torch


def dispatch_layout(routing_map, probs, tokens: int, experts: int, tp_size: int):
    """Copies made by merging reshapes: the ones only stored (in a container, into another
    tensor) keep the layout an unseen reader wants, low severity; the one handed to a view
    is a full finding."""
    replicated = routing_map.unsqueeze(1).expand(tokens, tp_size, experts)
    layout = {"routing": replicated.reshape(tokens * tp_size, experts)}
    weights = probs.unsqueeze(1).expand(tokens, tp_size, experts)
    buffer = torch.empty(tokens * tp_size, experts, dtype=probs.dtype)
    buffer[:] = weights.reshape(tokens * tp_size, experts)
    scores = probs.unsqueeze(1).expand(tokens, tp_size, experts)
    flat = scores.reshape(tokens * tp_size, experts).view(-1)
    return layout, buffer, flat
