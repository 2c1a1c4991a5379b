# With `low-severity = true`: small broadcasts are reported, marked low severity.
"""A renderer takes one world-to-camera matrix and one intrinsics matrix per cached view: the
copies are 16 and 9 numbers a view, metadata beside the images they project (low severity)."""


def per_view_cameras(target_w2cs, target_intrinsics, images):
    b, frames = target_w2cs.shape[:2]
    views = images.shape[2]
    w2cs = target_w2cs.reshape(b, frames, 1, 4, 4).expand(b, frames, views, 4, 4).reshape(-1, 4, 4)
    ks = target_intrinsics.reshape(b, frames, 1, 3, 3).expand(b, frames, views, 3, 3).reshape(-1, 3, 3)
    return w2cs, ks


def per_view_features(features, images, channels):
    """A feature vector per view is an activation: a full finding."""
    b, frames = features.shape[:2]
    views = images.shape[2]
    per_view = features.reshape(b, frames, 1, channels).expand(b, frames, views, channels)
    return per_view.reshape(-1, channels)
