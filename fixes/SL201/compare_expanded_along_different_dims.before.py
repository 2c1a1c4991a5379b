import torch


def patch_match(patch_ids, batch_size, num_patches, seq_len):
    q_ids = torch.arange(num_patches).unsqueeze(0).unsqueeze(-1).expand(batch_size, num_patches, seq_len)
    kv_ids = patch_ids.unsqueeze(1).expand(batch_size, num_patches, seq_len)
    # Broadcast along different dims: every position of the result holds its own value.
    return q_ids == kv_ids
