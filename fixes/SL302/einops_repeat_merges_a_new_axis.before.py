import torch
from einops import repeat


def per_token_embedding(frame_emb, batch, height, width):
    # One embedding per frame, repeated for every token of the frame: the output group
    # `(t h w)` joins the new axes to the frames, so einops copies batch x tokens x channels.
    return repeat(frame_emb, "(b t) c -> b (t h w) c", b=batch, h=height, w=width)


def grouped_keys(keys, groups):
    wide = repeat(keys, "b s h d -> b s (h g) d", g=groups)
    return torch.nn.functional.scaled_dot_product_attention(wide, wide, wide)


def new_axes_merged_together(frame_emb, height, width):
    # `(h w)` joins only new axes, both stride 0: a view, nothing copied.
    return repeat(frame_emb, "t c -> t (h w) c", h=height, w=width)


def input_axes_merged(frame_emb, height):
    # `(t c)` joins the input's own axes; the new axis `h` stays whole: nothing broadcast is merged.
    return repeat(frame_emb, "t c -> h (t c)", h=height)


def rotary_table(freqs):
    # Each frequency twice (interleaved rotary pairs): two literal copies, small.
    return repeat(freqs, "... n -> ... (n r)", r=2)


class Mixer(torch.nn.Module):
    def skip_gain(self):
        # A per-head parameter repeated per head dim: a model-sized constant, small.
        return repeat(self.D, "h -> (h p)", p=self.headdim)


def key_mask_per_head(scores, mask, heads):
    # The `()` axis is kept to broadcast against the scores' queries: a batch x heads x keys
    # copy beside batch x heads x queries x keys scores, small.
    mask = repeat(mask, "b j -> (b h) () j", h=heads)
    return scores.masked_fill(~mask, -1e4)
