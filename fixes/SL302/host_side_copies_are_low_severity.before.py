# With `low-severity = true`: copies of a tensor the code moved to the CPU are host-side
# post-processing, cheap beside the device work a kernel wrapper does (low severity).
def frame_labels(scores, feature_frames):
    scores = scores.squeeze(0).detach().cpu().sigmoid()
    repeat = feature_frames // scores.shape[0]
    return scores.unsqueeze(1).expand(-1, repeat, -1).reshape(-1, scores.shape[-1])


def frame_labels_on_device(scores, feature_frames):
    scores = scores.squeeze(0).sigmoid()
    repeat = feature_frames // scores.shape[0]
    return scores.unsqueeze(1).expand(-1, repeat, -1).reshape(-1, scores.shape[-1])
