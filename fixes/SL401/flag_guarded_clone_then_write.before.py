import torch


def ltor_positions(tokens, eod_token: int, reset_position_ids: bool, reset_masks: bool):
    """The ids are cloned under the flag that guards the write: a write under that flag
    never reaches the expand; one under another flag may."""
    batch, length = tokens.shape
    position_ids = torch.arange(length, device=tokens.device).unsqueeze(0).expand_as(tokens)
    if reset_position_ids:
        position_ids = position_ids.clone()
    for row in range(batch):
        ends = (tokens[row] == eod_token).nonzero().flatten()
        start = 0
        for end in ends.tolist():
            if reset_position_ids:
                position_ids[row, end + 1 :] -= end + 1 - start
                start = end + 1
            if reset_masks:
                position_ids[row, end] = 0
    return position_ids
