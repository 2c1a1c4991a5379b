"""Launch metadata of the reference reduce kernel: what Proton records for each launch.

The counts use narrow-and-rescale (semantics §0, §4.1): a mask broadcast over a large dim costs
memory and time proportional to its storage, not its logical size. The shipped file,
stridelint/reference/metadata.py, is exactly `stridelint fix` applied to the naive form kept in
fixes/SL101/reference_hook.before.py; a test keeps them so.
"""

import math

import torch


def reduce_launch_metadata(grid, kernel, args):
    """Name, additions and bytes of one reduce launch, for Proton's roofline.

    ``Mask`` may be a broadcast (stride-0) view: the wrapper expands lower-rank masks.
    ``flops32`` counts the fp32 additions a masked sum performs: per output element, one less
    than the number of kept (``mask != 0``) elements along ``DIM``. ``bytes`` counts the x and
    scale elements loaded where the mask keeps them plus the output written; mask reads are not
    counted. With a mask the counts are 0-d tensors on the mask's device, so no host sync
    (semantics §6).
    """
    x, y = args["X"], args["Y"]
    dim = args["DIM"] % x.ndim
    if args["HAS_MASK"]:
        mask = args["Mask"]
        kept = mask != 0
        loads = kept.sum()
        kept_per_row = kept.sum(dim=dim)
        adds = (kept_per_row - 1).clamp(min=0).sum()
    else:
        loads = x.numel()
        adds = y.numel() * max(x.shape[dim] - 1, 0)
    loaded_bytes = x.element_size() + (args["Scale"].element_size() if args["HAS_SCALE"] else 0)
    shape = ",".join(str(size) for size in x.shape)
    return {
        "name": f"reduce[{shape}] dim={dim}",
        "flops32": adds,
        "bytes": loads * loaded_bytes + y.numel() * y.element_size(),
    }
