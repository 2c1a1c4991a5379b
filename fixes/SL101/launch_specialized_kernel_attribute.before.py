import torch
import triton
import triton.language as tl


def masked_rows_metadata(grid, kernel, args):
    info = {"name": kernel.name}
    Src, Mask, dim = args["Src"], args["Mask"], args["DIM"]
    if Mask is None:
        info["loads"] = Src.numel()
    else:
        keep = Mask != 0
        info["loads"] = keep.sum().item()
        info["adds"] = (keep.sum(dim=dim) - 1).clamp(min=0).sum().item()
    return info


@triton.jit(launch_metadata=masked_rows_metadata)
def _masked_rows(Src, Out, Mask, stride_mr, stride_m0, stride_m1, N, EPILOGUE_ARG, BLOCK: tl.constexpr, DIM):
    pass


def masked_rows(src, dim, mask=None, epilogue=None):
    """Sum `src` over `dim`, skipping masked entries.

    Arguments:
        - src: Tensor
          the values to reduce.
        - mask: Optional[Tensor]
          an integer mask of the same shape as `src` (or
          broadcastable to it); zero entries are skipped.
    """
    out = torch.empty(src.shape[0], src.shape[2], device=src.device)
    strides = (0, 0, 0) if mask is None else mask.stride()
    variants.pick(epilogue=epilogue)._masked_rows[(out.numel(),)](
        src, out, mask, *strides, src.shape[dim], *epilogue.args, BLOCK=128, DIM=dim
    )
    return out
