# With `low-severity = true`: small broadcasts are reported, marked low severity.
"""Multi-head attention in torch's layout merges a key padding mask into the heads: one key
vector a batch row, copied per head, bsz x heads x keys booleans beside the bsz x heads x
queries x keys scores it masks (low severity). Copied per query too, it is the scores' size."""


def merge_key_padding_mask(key_padding_mask, bsz, num_heads, src_len):
    return (
        key_padding_mask.view(bsz, 1, 1, src_len)
        .expand(-1, num_heads, -1, -1)
        .reshape(bsz * num_heads, 1, src_len)
    )


def merge_key_padding_mask_per_query(key_padding_mask, bsz, num_heads, tgt_len, src_len):
    per_query = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, tgt_len, -1)
    return per_query.reshape(bsz * num_heads, tgt_len, src_len)
