import torch


def dispatch_scales(tokens, scale, block_scale, k_blocks: int, dispatcher):
    """One scale slot per token and one per K block: `(rows, 1)` and `(1, k_blocks)` hold one
    dim's worth of values, as small as the 1-D expand: not reported. The per-element grid is."""
    per_token = scale.expand(tokens.shape[0], 1).contiguous()
    per_block = block_scale.reshape(()).expand(1, k_blocks).contiguous()
    per_element = scale.expand(tokens.shape[0], tokens.shape[1]).reshape(-1)
    return dispatcher(tokens, per_token, per_block, per_element)


def camera_focal(fx, xi, width: float):
    """The batch is the larger of two 1-D lengths: still one number, so a one-dim expand."""
    batch = max(fx.shape[0], xi.shape[0])
    fx = fx.expand(batch)
    return 2.0 * fx / width
