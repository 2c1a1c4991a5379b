"""The reference Triton reduce kernel that stridelint is validated on (needs torch and triton)."""

from stridelint.reference.reduce import reduce

__all__ = ["reduce"]
