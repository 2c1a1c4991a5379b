"""Which kind of op the watcher saw, and which static rule family it corresponds to.

The watcher sees torch-level calls (`torch.Tensor.ne`, `torch.add`, ...), so classification is
by the function's short name. Kinds map to rule families as follows:

* `reduction` -> SL1xx: a reduction read the broadcast input at its logical size.
* `elementwise`, `cast` -> SL2xx: the materialized result stays a tensor (`elementwise` is
  also the bucket for every op not named below, `matmul` say). The static SL101
  ("elementwise op, then a reduction") shows up at runtime as an event of its elementwise op,
  because that op is where the memory goes; SL1xx-family events are reductions applied
  directly to the broadcast tensor.
* `copy` -> SL3xx: `contiguous`, `clone`, a `reshape` that merges a stride-0 dim, `*_like`,
  device copies, gathers and concatenations.
* `write` -> SL4xx: in-place ops, `__setitem__` and `out=` targets.

The family is the event's name only when no rule flags its line: otherwise the event carries
the finding's code, so the `!=` of `(mask != 0).sum()` is SL101 in both reports
(`STATIC_CODE_PREFIXES` says which codes can name each kind, best first).
"""

from __future__ import annotations

FAMILIES = {
    "reduction": "SL1xx",
    "elementwise": "SL2xx",
    "cast": "SL2xx",
    "copy": "SL3xx",
    "write": "SL4xx",
}

# The static codes that can name an event of each kind, best first: SL101 is an elementwise
# op, cast or copy whose result is reduced, so it names those events as well as SL2xx/SL3xx.
STATIC_CODE_PREFIXES = {
    "reduction": ("SL1",),
    "elementwise": ("SL2", "SL1"),
    "cast": ("SL2", "SL1"),
    "copy": ("SL3", "SL1"),
    "write": ("SL4",),
}

# Reductions measured to allocate a logical-size temporary for some input dtype (semantics §1.4).
REDUCTIONS = frozenset(
    {
        "sum", "nansum", "prod", "mean", "count_nonzero", "any", "all",
        "argmax", "argmin", "logsumexp", "cumsum", "cumprod",
    }
)  # fmt: skip

# Return a tensor of another dtype or device; the same dtype and device returns `self` (§1.1).
CASTS = frozenset(
    {
        "to", "type", "type_as", "float", "double", "half", "bfloat16", "bool",
        "byte", "char", "short", "int", "long", "cfloat", "cdouble", "chalf",
    }
)  # fmt: skip

COPIES = frozenset(
    {
        "contiguous", "clone", "reshape", "reshape_as", "flatten", "ravel", "repeat", "tile",
        "repeat_interleave", "cat", "concat", "concatenate", "stack", "hstack", "vstack",
        "dstack", "column_stack", "cpu", "cuda", "pin_memory", "to_dense", "new_empty",
        "new_zeros", "new_ones", "new_full", "new_empty_strided", "new_tensor", "__getitem__",
        "index_select", "masked_select", "take", "gather", "narrow_copy", "expand_copy",
    }
)  # fmt: skip

AUGMENTED_ASSIGNMENTS = frozenset(
    {
        "__iadd__", "__isub__", "__imul__", "__imatmul__", "__itruediv__", "__ifloordiv__",
        "__imod__", "__ipow__", "__ilshift__", "__irshift__", "__iand__", "__ixor__", "__ior__",
    }
)  # fmt: skip

# In-place by name but metadata only: they change shape, strides, grad state or storage
# binding, never the values of the elements.
METADATA_INPLACE = frozenset(
    {
        "requires_grad_", "share_memory_", "detach_", "resize_", "resize_as_", "set_",
        "as_strided_", "squeeze_", "unsqueeze_", "t_", "transpose_", "swapdims_",
        "swapaxes_", "rename_", "_coalesced_",
    }
)  # fmt: skip


def writes_first_argument(name: str) -> bool:
    """`x.add_(v)`, `torch.relu_(x)`, `x[i] = v`, `x += v`: ops that write their first argument."""
    if name == "__setitem__" or name in AUGMENTED_ASSIGNMENTS:
        return True
    return name.endswith("_") and not name.endswith("__") and name not in METADATA_INPLACE


def allocation_kind(name: str, input_dtype: object, output_dtype: object) -> str:
    """Kind of an op that allocated a large output from a broadcast input."""
    if name in CASTS:
        return "cast" if output_dtype != input_dtype else "copy"
    if name in COPIES or name.endswith("_like"):
        return "copy"
    return "elementwise"
