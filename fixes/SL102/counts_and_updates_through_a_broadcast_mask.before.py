"""A placeholder check of a vision-language model expands the token mask over the hidden size
only to count, through a boolean selection, the embeddings it picks; a gate is updated in place
through a mask broadcast over heads."""
import torch


def placeholder_mask(input_ids, inputs_embeds, image_features, image_token_id):
    mask = input_ids == image_token_id
    mask = mask.unsqueeze(-1).expand_as(inputs_embeds).to(inputs_embeds.device)
    if inputs_embeds[mask].numel() != image_features.numel():
        raise ValueError("image features and image tokens do not match")
    return mask


def rows_picked_by_index(index, inputs_embeds, hidden):
    rows = index[:, None].expand(-1, hidden)  # an integer index gathers rows: no count of it
    return inputs_embeds[rows].numel()


def placeholder_mask_from_embeddings(input_ids, inputs_embeds, placeholder_embed, image_token_id):
    if input_ids is None:
        mask = (inputs_embeds == placeholder_embed).all(-1)  # bool, whatever the embeddings' dtype
    else:
        mask = input_ids == image_token_id
    mask = mask.unsqueeze(-1).expand_as(inputs_embeds)
    return inputs_embeds[mask].numel()


def amplify_own_chunk(gate, positions, chunk_start, chunk_end, num_head):
    """An in-place update through a mask broadcast over heads: found twice over chunks x heads
    x positions (read, then write back)."""
    own = ((positions >= chunk_start[:, None]) & (positions < chunk_end[:, None]))
    own = own.unsqueeze(1).expand(-1, num_head, -1)
    gate = gate.clone()
    gate[own] += 1e9
    gate[own] = 0.0  # a number stored through the mask is a masked_fill: no index is built
    return gate
