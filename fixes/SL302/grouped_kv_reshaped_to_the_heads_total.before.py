import torch.nn.functional as F


class GroupedAttention:
    def forward(self, query, key, value, mask, batch, length):
        # (batch, kv_heads, length, dim) keys repeated per query group. The reshape names
        # the heads' total, no size of the expand: it has one dim fewer and the group dim's
        # size is gone, so the group dim is merged with the kv heads, a full copy.
        groups = self.num_heads // self.num_kv_heads
        key = key[:, :, None].expand(-1, -1, groups, -1, -1).reshape(
            batch, self.num_heads, length, self.head_dim
        )
        value = value[:, :, None].expand(-1, -1, groups, -1, -1).reshape(
            batch, self.num_heads, length, self.head_dim
        )
        return F.scaled_dot_product_attention(query, key, value, attn_mask=mask)

    def split_heads(self, hidden, batch, length):
        # The stride-0 dim keeps its own size: only the dims after it are split, a view.
        groups = self.num_heads // self.num_kv_heads
        return hidden[:, None].expand(-1, groups, -1, -1).reshape(batch, groups, length, 2, -1)
