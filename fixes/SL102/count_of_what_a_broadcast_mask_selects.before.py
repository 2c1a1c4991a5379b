"""A placeholder check of a vision-language model: the token mask is expanded over the hidden
size only to count, through a boolean selection, the embeddings it picks."""
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
