import torch


def scan_to_points(ranges, azimuth, height: int, valid):
    """Polar scan to x/y points. `azimuth.expand(height, -1)[valid]` gathers the kept
    readings into a fresh dense vector (boolean-mask indexing copies), so `sin`/`cos` of it
    materialize nothing broadcast: no finding."""
    az = azimuth.unsqueeze(0).expand(height, -1)[valid]
    r = ranges[valid]
    return r * torch.cos(az), r * torch.sin(az)


def scan_to_points_by_row(ranges, azimuth, height: int, row):
    """Indexing with a row number keeps the view: `cos` then reads every copy."""
    az = azimuth.unsqueeze(0).expand(height, -1)[row]
    return ranges[row] * torch.cos(az.unsqueeze(0).expand(height, -1))
