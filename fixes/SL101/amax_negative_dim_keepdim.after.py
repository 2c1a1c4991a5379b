import torch


def peak_magnitude(x, copies):
    xb = torch.broadcast_to(x, (copies, *x.shape))
    xb_reps = tuple(
        n if st == 0 and n > 1 else 1 for n, st in zip(xb.shape, xb.stride())
    )
    xb_small = xb[tuple(slice(1) if r > 1 else slice(None) for r in xb_reps)]
    return xb_small.abs().amax(dim=-1, keepdim=True).amax()
