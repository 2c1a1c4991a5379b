import torch


class MultiAxisRotary(torch.nn.Module):
    """Both branches cast the frequencies to float32 before the expand, so `.float()` of the
    expand, inside the autocast block, returns the expand itself: nothing to report."""

    def forward(self, x, position_ids):
        if self.scaled:
            freq = self.scaled_freq[None, None, :, None].float().expand(3, x.shape[0], -1, 1)
        else:
            freq = self.base_freq[None, None, :, None].float().expand(3, x.shape[0], -1, 1)
        with torch.autocast(device_type=x.device.type, enabled=False):
            angles = freq.float() @ position_ids[:, :, None, :].float()
        return angles.transpose(2, 3)


class MixedRotary(torch.nn.Module):
    """One branch keeps half precision: `.float()` may copy every logical element."""

    def forward(self, x, position_ids):
        if self.scaled:
            freq = self.scaled_freq[None, None, :, None].float().expand(3, x.shape[0], -1, 1)
        else:
            freq = self.base_freq[None, None, :, None].half().expand(3, x.shape[0], -1, 1)
        with torch.autocast(device_type=x.device.type, enabled=False):
            angles = freq.float() @ position_ids[:, :, None, :].float()
        return angles.transpose(2, 3)
