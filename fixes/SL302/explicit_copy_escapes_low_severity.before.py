# With `low-severity = true` the low-severity copies (escaping, filled) are reported too.
import torch
import triton


@triton.jit
def _scale_kernel(X, S, Y, N):
    pass


def row_table(values, batch):
    """An explicit copy returned to the caller: its author asked for a dense tensor and the
    caller, which the linter cannot see, usually needs one: low severity."""
    grid = values[None, :].expand(batch, -1).clone()
    return grid


def filled_buffer(row, n: int):
    """A copy the code then writes into is a buffer initialised from the broadcast: low
    severity (SL401 would report the write if it went into the view itself)."""
    buf = row[None, :].expand(n, -1).clone()
    buf[0] = 0
    return buf


def scales_for_kernel(x, scale, out):
    """The copy feeds a kernel launched without its strides: passing them removes the copy."""
    s = scale[None, :].expand(x.shape[0], -1).contiguous()
    _scale_kernel[(x.shape[0],)](x, s, out, x.shape[1])
    return out


def repeated_heads(k, n_rep: int):
    """A reshape that merges the stride-0 dim copies without being asked to: reported even
    though the result is returned."""
    b, h, s, d = k.shape
    return k[:, :, None].expand(b, h, n_rep, s, d).reshape(b, h * n_rep, s, d)
