def log_partition(logits, copies):
    lb = logits.expand(copies, -1)
    return (lb / 2.0).logsumexp(dim=1).sum()
