"""stridelint: find and fix ops that materialize broadcast (stride-0) PyTorch tensors."""

__version__ = "0.1.0"
