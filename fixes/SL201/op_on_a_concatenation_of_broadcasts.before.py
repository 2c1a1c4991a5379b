"""A rotary table made by concatenating per-axis tables, each expanded over the frame grid:
cast after the concatenation it converts every repeated value; a product with the activations
is output-sized, and a concatenation with a dense part is the output itself."""
import torch


def rope_apply(x, freqs, f, h, w, num_heads):
    seq_len = f * h * w
    x_complex = torch.view_as_complex(x.to(torch.float32).reshape(x.shape[0], seq_len, num_heads, -1, 2))
    c = freqs.shape[-1] // 3
    freqs_i = torch.cat(
        [
            freqs[:f, :c].view(f, 1, 1, -1).expand(f, h, w, -1),
            freqs[:h, c:2 * c].view(1, h, 1, -1).expand(f, h, w, -1),
            freqs[:w, 2 * c:].view(1, 1, w, -1).expand(f, h, w, -1),
        ],
        dim=-1,
    ).reshape(seq_len, 1, -1)
    out = torch.view_as_real(x_complex * freqs_i.unsqueeze(0).to(x_complex.dtype)).flatten(3)
    return out.to(dtype=x.dtype)


def rope_no_cast(x_i, freqs, f, h, w):
    freqs_i = torch.cat(
        [freqs[0][:f].view(f, 1, 1, -1).expand(f, h, w, -1), freqs[1][:h].view(1, h, 1, -1).expand(f, h, w, -1)],
        dim=-1,
    ).reshape(f * h * w, 1, -1)
    return torch.view_as_real(x_i * freqs_i).flatten(2)


def cls_and_patches(cls_token, patches):
    batch = patches.shape[0]
    tokens = torch.cat([cls_token.expand(batch, -1, -1), patches], dim=1)
    return tokens.float()


def rope_table_per_layout(x_complex, freqs, f, h, w):
    """Each branch concatenates expanded per-axis tables: the cast after them converts every
    repeated value."""
    if freqs.dim() == 3:
        table = torch.cat(
            [freqs[0, :f].view(f, 1, 1, -1).expand(f, h, w, -1),
             freqs[1, :h].view(1, h, 1, -1).expand(f, h, w, -1)], dim=-1)
    else:
        table = torch.cat(
            [freqs[:f].view(f, 1, 1, -1).expand(f, h, w, -1),
             freqs[:h].view(1, h, 1, -1).expand(f, h, w, -1)], dim=-1)
    return x_complex * table.reshape(f * h * w, 1, -1).to(x_complex.dtype)


def rotation_table(angles_t, angles_h, f, h):
    angles = torch.cat(
        [angles_t.view(f, 1, -1).expand(f, h, -1), angles_h.view(1, h, -1).expand(f, h, -1)], dim=-1
    )
    cos, sin = torch.cos(angles), torch.sin(angles)
    return torch.stack([cos, -sin, sin, cos], dim=-1)


def stacked_rows_of_one_broadcast(row0, row1):
    row0, row1 = torch.broadcast_tensors(row0, row1)  # dense wherever the inputs differ
    return torch.stack([row0, row1], dim=-2).to(torch.float64)
