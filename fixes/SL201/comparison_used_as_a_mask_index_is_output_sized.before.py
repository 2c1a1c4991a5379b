# With `low-severity = true`: a comparison of an expand that indexes another tensor whole is
# as large as what the indexing reads anyway (low severity); one kept for an elementwise op
# is a full finding.
import torch


def gate_quiet_blocks(energy, loudness, floor: float):
    """`loudness` is one value per block, expanded over `energy`'s channels; the bool mask the
    comparison makes is read whole by the index, so materializing it costs one more buffer
    of that size at most."""
    level = loudness.expand_as(energy)
    gated = energy.clone()
    gated[level <= floor] = 0
    return gated


def quiet_weights(energy, loudness, floor: float):
    """The comparison is kept and multiplied: a full finding."""
    level = loudness.expand_as(energy)
    quiet = level <= floor
    return energy * quiet
