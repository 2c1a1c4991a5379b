import math
import torch


def joint_probability(p, trials):
    pt = torch.broadcast_to(p, (trials, *p.shape))
    pt_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(pt.shape, pt.stride())
    )
    pt_small = pt[tuple(slice(1) if r > 1 else slice(None) for r in pt_reps)]
    return pt_small.prod() ** math.prod(pt_reps)
