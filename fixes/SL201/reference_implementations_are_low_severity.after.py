# With `low-severity = true`: findings in a reference implementation (named naive_*, *_ref,
# *_reference, oracle) are low severity: it is written for clarity, to check a kernel against.


def naive_keep_scores(scores, keep):
    """The kernel's oracle: clarity first, copies do not matter."""
    keep_all = keep[:, None, :].expand(-1, scores.shape[1], -1)
    return scores * (~keep[:, None, :]).float().expand_as(keep_all)


def keep_scores(scores, keep):
    """The same in production code: a full finding."""
    keep_all = keep[:, None, :].expand(-1, scores.shape[1], -1)
    return scores * (~keep[:, None, :]).float().expand_as(keep_all)

