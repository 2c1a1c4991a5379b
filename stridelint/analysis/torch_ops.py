"""What each PyTorch op does to a broadcast (stride-0) tensor: tables, no logic.

Every entry is backed by the semantics doc (shared/design/broadcast-semantics.md).
"""

from __future__ import annotations

# Ops whose result is a view: stride 0 survives wherever the dim survives (semantics §1.1).
VIEW_METHODS = frozenset(
    {
        "transpose", "permute", "t", "unsqueeze", "squeeze", "narrow", "view", "view_as",
        "select", "unfold", "diagonal", "movedim", "moveaxis", "swapaxes", "swapdims",
        "detach", "unflatten", "expand", "expand_as", "broadcast_to",
    }
)  # fmt: skip
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data"})

# Same-dtype moves between devices keep the tensor's layout (ARCHITECTURE.md).
DEVICE_METHODS = frozenset({"cuda", "cpu"})

# Methods that create a stride-0 view from any tensor (semantics §0 rule 1).
BROADCAST_METHODS = frozenset({"expand", "expand_as", "broadcast_to"})
BROADCAST_FUNCTIONS = frozenset({"torch.broadcast_to"})
BROADCAST_TUPLE_FUNCTIONS = frozenset({"torch.broadcast_tensors"})
STRIDED_FUNCTIONS = frozenset({"torch.as_strided", "torch.empty_strided"})

# dtype casts: a new full-size tensor unless the dtype is unchanged (semantics §1.1).
CAST_METHODS = frozenset(
    {"float", "double", "half", "bfloat16", "int", "long", "short", "bool", "byte", "char"}
)
BOOL_CASTS = frozenset({"bool"})
INTEGER_CASTS = frozenset({"int", "long", "short", "byte", "char"})

# TensorIterator ops: dense, full logical size, never stride 0 (semantics §1.2).
ELEMENTWISE_METHODS = frozenset(
    {
        "abs", "neg", "negative", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10",
        "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "clamp", "clip",
        "clamp_min", "clamp_max", "floor", "ceil", "round", "trunc", "sign", "reciprocal",
        "square", "pow", "add", "sub", "subtract", "mul", "multiply", "div", "divide",
        "true_divide", "floor_divide", "remainder", "fmod", "eq", "ne", "lt", "le", "gt", "ge",
        "logical_not", "logical_and", "logical_or", "logical_xor", "bitwise_not",
        "bitwise_and", "bitwise_or", "bitwise_xor", "masked_fill", "where", "maximum",
        "minimum", "isnan", "isinf", "isfinite", "nan_to_num", "lerp", "erf", "float_power",
    }
)  # fmt: skip
BOOL_RESULT_METHODS = frozenset(
    {"eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and", "logical_or",
     "logical_xor", "isnan", "isinf", "isfinite"}
)  # fmt: skip
ELEMENTWISE_FUNCTIONS = frozenset(f"torch.{name}" for name in ELEMENTWISE_METHODS)
COPY_METHODS = frozenset({"contiguous", "clone"})
# Copies the logical size when they merge a stride-0 dim with another (semantics §1.1).
LAYOUT_METHODS = frozenset({"reshape", "flatten", "ravel"})
LIKE_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in ("empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like")
)
# Trailing-underscore methods that change metadata or autograd state, not the data.
INPLACE_EXCEPTIONS = frozenset(
    {
        "requires_grad_", "share_memory_", "retain_grad", "names_", "unsqueeze_", "squeeze_",
        "t_", "transpose_", "swapdims_", "swapaxes_", "as_strided_", "resize_", "resize_as_",
        "detach_", "set_",
    }
)  # fmt: skip
# Functions whose results are Python-number-like (`torch.finfo(t).min`).
SCALAR_FUNCTIONS = frozenset({"torch.finfo", "torch.iinfo", "torch.numel", "torch.is_tensor"})

# Allocations with no stride-0 dim.
FRESH_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "arange",
        "linspace", "tensor", "eye", "empty_like", "zeros_like", "ones_like", "full_like",
        "rand_like", "randn_like", "randint_like", "cat", "stack",
    )
)  # fmt: skip

# Reductions and how a narrowed input's result is rescaled (semantics §2.1):
# "mul": times the repeat count; "none": scale-free; "pow": to the power; "log": plus log.
REDUCTIONS = {
    "sum": "mul",
    "nansum": "mul",
    "count_nonzero": "mul",
    "mean": "none",
    "nanmean": "none",
    "any": "none",
    "all": "none",
    "amax": "none",
    "amin": "none",
    "max": "none",
    "min": "none",
    "prod": "pow",
    "logsumexp": "log",
    "norm": "norm",
}
REDUCTION_FUNCTIONS = {f"torch.{name}": scale for name, scale in REDUCTIONS.items()} | {
    "torch.linalg.vector_norm": "norm",
    "torch.linalg.norm": "norm",
}
# Reductions that return integer counts whatever the input dtype.
COUNT_REDUCTIONS = frozenset({"count_nonzero"})
# Reductions that need a `dim` to be reductions (`x.max(other)` is elementwise).
DIM_REQUIRED_FOR_TUPLE = frozenset({"max", "min"})

# Names of torch dtypes, to tell `.to(dtype)` from `.to(device)`.
DTYPE_NAMES = frozenset(
    {
        "float", "float32", "float64", "double", "float16", "half", "bfloat16", "int",
        "int8", "int16", "int32", "int64", "long", "short", "uint8", "bool", "complex64",
        "complex128", "float8_e4m3fn", "float8_e5m2",
    }
)  # fmt: skip

# Triton decorators that make a function a kernel.
KERNEL_DECORATORS = frozenset(
    {"triton.jit", "triton.autotune", "triton.heuristics", "triton.runtime.jit.jit"}
)
