# With `low-severity = true`: small broadcasts are reported, marked low severity.
"""Camera matrices documented as [B, T, 4, 4] repeated for every token of their frame: 16
numbers a token (low severity); per-frame features repeated so are a full finding."""
from einops import repeat


def forward(hidden_states, viewmats, Ks, feats, h, w):
    """Run.

    Args:
        hidden_states: tokens [B, L, D]
        viewmats: Camera view matrices [B, T, 4, 4]
        Ks: Camera intrinsics [B, T, 3, 3]
        feats: per-frame features [B, T, C, D]
    """
    viewmats_seq = repeat(viewmats, "B T M N->B (T H W) M N", H=h, W=w)
    Ks_seq = repeat(Ks, "B T M N->B (T H W) M N", H=h, W=w)
    feats_seq = repeat(feats, "B T C D->B (T H W) C D", H=h, W=w)
    return viewmats_seq, Ks_seq, feats_seq
