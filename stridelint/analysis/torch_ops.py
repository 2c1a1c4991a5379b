"""What each PyTorch op does to a broadcast (stride-0) tensor: the one table of torch facts.

`METHODS` and `FUNCTIONS` map each op to an `Op` record (its kind, the dtype of its result,
its tensor arity); every set below is derived from them or states one more fact, and the
analysis, the rules, the transforms, the pre-filter and the runtime watcher read these.
Every entry is backed by the semantics doc (shared/design/broadcast-semantics.md), and
`tests/analysis/test_torch_ops_drift.py` checks the entries against real torch.
No LibCST import: the pre-filter and the rule registry read this at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

# Kinds (semantics §1.1, §1.2).
VIEW = "view"  # shares storage; stride 0 survives wherever the dim survives
BROADCAST = "broadcast"  # a view that makes stride-0 dims
ELEMENTWISE = "elementwise"  # TensorIterator: dense, full logical size, never stride 0
CAST = "cast"  # a dtype change: full-size copy unless the dtype is unchanged
COPY = "copy"  # a dense full-size copy whatever the layout
LAYOUT = "layout"  # a view when no stride-0 dim is merged, else a full-size copy
REDUCTION = "reduction"
DEVICE = "device"  # same-dtype moves keep the layout (ARCHITECTURE.md)

# Result dtypes.
SAME = "same"  # the input's (promoted) dtype
BOOL = "bool"
TARGET = "target"  # the dtype the cast names
FLOAT64 = "float64"  # `float_power` computes in double whatever its inputs


@dataclass(frozen=True)
class Op:
    kind: str
    result_dtype: str = SAME
    arity: int = 1  # tensor operands, the receiver included
    rescale: str | None = None  # reductions: how a narrowed input's result is rescaled (§2.1)


def _ops(kind: str, names: str, **facts: object) -> dict[str, Op]:
    return {name: Op(kind, **facts) for name in names.split()}  # type: ignore[arg-type]


METHODS: dict[str, Op] = {
    **_ops(VIEW, "transpose permute t unsqueeze squeeze narrow view view_as select unfold "
                 "diagonal movedim moveaxis swapaxes swapdims detach unflatten"),
    **_ops(BROADCAST, "expand expand_as broadcast_to"),
    **_ops(DEVICE, "cuda cpu"),
    **_ops(ELEMENTWISE, "abs neg negative exp exp2 expm1 log log1p log2 log10 sqrt rsqrt sin "
                        "cos tan tanh sigmoid relu clamp clip clamp_min clamp_max floor ceil "
                        "round trunc sign reciprocal square nan_to_num erf"),
    **_ops(ELEMENTWISE, "pow add sub subtract mul multiply div divide true_divide "
                        "floor_divide remainder fmod bitwise_and bitwise_or bitwise_xor "
                        "maximum minimum", arity=2),
    **_ops(ELEMENTWISE, "float_power", result_dtype=FLOAT64, arity=2),
    **_ops(ELEMENTWISE, "bitwise_not"),
    **_ops(ELEMENTWISE, "masked_fill lerp where", arity=2),
    **_ops(ELEMENTWISE, "logical_not isnan isinf isfinite", result_dtype=BOOL),
    **_ops(ELEMENTWISE, "eq ne lt le gt ge logical_and logical_or logical_xor",
           result_dtype=BOOL, arity=2),
    **_ops(CAST, "float double half bfloat16 int long short byte char", result_dtype=TARGET),
    **_ops(CAST, "bool", result_dtype=BOOL),
    **_ops(CAST, "type_as", result_dtype=TARGET, arity=2),
    **_ops(COPY, "contiguous clone"),
    **_ops(LAYOUT, "reshape flatten ravel"),
    **_ops(REDUCTION, "sum nansum count_nonzero", rescale="mul"),
    **_ops(REDUCTION, "mean nanmean amax amin max min", rescale="none"),
    **_ops(REDUCTION, "any all", rescale="none", result_dtype=BOOL),
    **_ops(REDUCTION, "prod", rescale="pow"),
    **_ops(REDUCTION, "logsumexp", rescale="log"),
    **_ops(REDUCTION, "norm", rescale="norm"),
}  # fmt: skip

# torch.nn.functional ops that are elementwise on one tensor (semantics §1.2).
_FUNCTIONAL_ELEMENTWISE = (
    "relu relu6 gelu silu mish softplus softsign sigmoid tanh hardtanh hardsigmoid "
    "hardswish leaky_relu elu selu celu logsigmoid tanhshrink softshrink hardshrink threshold"
)

FUNCTIONS: dict[str, Op] = {
    **{f"torch.{name}": op for name, op in METHODS.items()
       if op.kind in (ELEMENTWISE, REDUCTION)},
    **{f"torch.nn.functional.{name}": Op(ELEMENTWISE) for name in _FUNCTIONAL_ELEMENTWISE.split()},
    "torch.linalg.vector_norm": Op(REDUCTION, rescale="norm"),
    "torch.linalg.norm": Op(REDUCTION, rescale="norm"),
}  # fmt: skip


def _methods(kind: str) -> frozenset[str]:
    return frozenset(name for name, op in METHODS.items() if op.kind == kind)


def _functions(kind: str) -> frozenset[str]:
    return frozenset(name for name, op in FUNCTIONS.items() if op.kind == kind)


BROADCAST_METHODS = _methods(BROADCAST)
VIEW_METHODS = _methods(VIEW) | BROADCAST_METHODS
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data"})
DEVICE_METHODS = _methods(DEVICE)
CAST_METHODS = frozenset(n for n, op in METHODS.items() if op.kind == CAST and op.arity == 1)
BOOL_CASTS = frozenset(n for n in CAST_METHODS if METHODS[n].result_dtype == BOOL)
INTEGER_CASTS = frozenset({"int", "long", "short", "byte", "char"})
ELEMENTWISE_METHODS = _methods(ELEMENTWISE)
BOOL_RESULT_METHODS = frozenset(
    n for n in ELEMENTWISE_METHODS if METHODS[n].result_dtype == BOOL
)
# Reductions whose result is bool whatever the input dtype (`x.any(-1)`, `(a == b).all(-1)`).
BOOL_REDUCTIONS = frozenset(
    n for n, op in METHODS.items() if op.kind == REDUCTION and op.result_dtype == BOOL
)
ELEMENTWISE_FUNCTIONS = _functions(ELEMENTWISE)
COPY_METHODS = _methods(COPY)
LAYOUT_METHODS = _methods(LAYOUT)
REDUCTIONS = {n: op.rescale for n, op in METHODS.items() if op.kind == REDUCTION}
REDUCTION_FUNCTIONS = {n: op.rescale for n, op in FUNCTIONS.items() if op.kind == REDUCTION}
# Reductions that return integer counts whatever the input dtype.
COUNT_REDUCTIONS = frozenset({"count_nonzero"})
# Reductions that need a `dim` to be reductions (`x.max(other)` is elementwise).
DIM_REQUIRED_FOR_TUPLE = frozenset({"max", "min"})

# Functions that create a stride-0 view (semantics §0 rule 1).
BROADCAST_FUNCTIONS = frozenset({"torch.broadcast_to"})
# `torch.meshgrid` expands each 1-D input along the others' dims: stride-0 views too.
BROADCAST_TUPLE_FUNCTIONS = frozenset(
    {"torch.broadcast_tensors", "torch.distributions.utils.broadcast_all", "torch.meshgrid"}
)
# Allocations and views given their strides: the position of the stride argument.
STRIDE_POSITIONS = {"torch.as_strided": 2, "torch.empty_strided": 1}
STRIDED_FUNCTIONS = frozenset(STRIDE_POSITIONS)
# einops functions run by their pattern (analysis/einops_patterns.py): `repeat` expands each
# new axis (a stride-0 view unless an output group merges it); both are views when no output
# group merges axes.
PATTERN_BROADCAST_FUNCTIONS = frozenset({"einops.repeat"})
PATTERN_VIEW_FUNCTIONS = PATTERN_BROADCAST_FUNCTIONS | frozenset({"einops.rearrange"})
# Modules whose import may bring a source the pre-filter cannot know by its last name
# (`repeat` is too common a word): a file importing one is read.
SOURCE_MODULES = frozenset({"einops"})

LIKE_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in ("empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like")
)
# Allocations with no stride-0 dim.
FRESH_FUNCTIONS = LIKE_FUNCTIONS | frozenset(
    f"torch.{name}"
    for name in ("empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm",
                 "arange", "linspace", "tensor", "eye", "randint_like", "cat", "stack")
)  # fmt: skip
# Allocations holding one value at every position (a padding part of a concatenation).
CONSTANT_FILL_FUNCTIONS = frozenset(
    f"torch.{name}" for name in ("zeros", "ones", "full", "zeros_like", "ones_like", "full_like")
)
# `torch.outer(a, b)`: row i is `a[i] * b`, so rows repeat wherever `a`'s values do.
OUTER_FUNCTIONS = frozenset({"torch.outer"})
# 1-D index or coordinate vectors (one value per position): a grid expanded from one holds
# position ids or offsets, the output the code wants, and is small beside the activations.
INDEX_FUNCTIONS = frozenset({"torch.arange", "torch.linspace"})
# Functions that write each input, whole, into one new dense tensor at least as large.
JOIN_FUNCTIONS = frozenset({"torch.cat", "torch.concat", "torch.stack"})
# Functions whose result has their first tensor argument's dtype (`F.pad(mask, (0, 1),
# value=True)` stays bool).
FIRST_INPUT_DTYPE_FUNCTIONS = frozenset({"torch.nn.functional.pad"})

# Trailing-underscore methods that change metadata or autograd state, not the data.
INPLACE_EXCEPTIONS = frozenset(
    {
        "requires_grad_", "share_memory_", "retain_grad", "names_", "unsqueeze_", "squeeze_",
        "t_", "transpose_", "swapdims_", "swapaxes_", "as_strided_", "resize_", "resize_as_",
        "detach_", "set_",
    }
)  # fmt: skip

# Methods and attributes whose results are Python values, not tensors.
SCALAR_METHODS = frozenset(
    {"stride", "size", "dim", "numel", "item", "element_size", "tolist", "nelement",
     "data_ptr", "storage_offset", "is_contiguous", "get_device"}
)  # fmt: skip
# Of those, the ones that count elements: of a boolean selection `x[mask]`, the mask's count.
COUNT_METHODS = frozenset({"numel", "nelement"})
SCALAR_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "device", "is_cuda", "layout"})
SCALAR_BUILTINS = frozenset({"int", "float", "bool", "len", "abs", "round", "complex"})
# Functions whose results are Python-number-like (`torch.finfo(t).min`).
SCALAR_FUNCTIONS = frozenset({"torch.finfo", "torch.iinfo", "torch.numel", "torch.is_tensor"})

# Methods that read a tensor's metadata (or one element), never write it.
METADATA_METHODS = frozenset(
    {"size", "dim", "numel", "nelement", "element_size", "get_device", "item", "tolist",
     "is_floating_point", "is_complex", "new_empty", "new_zeros", "new_ones",
     "new_full", "new_tensor"}
)  # fmt: skip
METADATA_ATTRIBUTES = frozenset(
    {"shape", "ndim", "dtype", "device", "is_cuda", "layout", "requires_grad", "is_leaf"}
)
# Methods whose answer depends on the layout itself (strides, storage): they can tell a
# stride-0 view from a dense tensor.
LAYOUT_QUERY_METHODS = frozenset(
    {"data_ptr", "storage_offset", "is_contiguous", "untyped_storage", "storage", "numpy",
     "is_set_to", "is_non_overlapping_and_dense"}
)  # fmt: skip

# Names of torch dtypes, to tell `.to(dtype)` from `.to(device)`.
DTYPE_NAMES = frozenset(
    {
        "float", "float32", "float64", "double", "float16", "half", "bfloat16", "int",
        "int8", "int16", "int32", "int64", "long", "short", "uint8", "bool", "complex64",
        "complex128", "float8_e4m3fn", "float8_e5m2",
    }
)  # fmt: skip

# How code spells integer and float dtypes, by the last part of the name (`torch.int64`,
# `long`); bool is neither.
INTEGER_DTYPE_NAMES = frozenset({"int8", "int16", "int32", "int64", "long", "short", "uint8", "int"})
FLOAT_DTYPE_NAMES = frozenset(
    {"float", "float16", "half", "bfloat16", "float32", "float64", "double"}
)

# Functions that turn a bool mask argument into a float bias of the mask's full logical size
# before any kernel runs (`where(mask, 0, -inf)`): a bool mask expanded first is materialized
# there, one left unexpanded broadcasts for free; a float mask is read through its strides.
# -> (keyword, position) of the mask argument.
BOOL_MASK_ARGUMENTS = {"torch.nn.functional.scaled_dot_product_attention": ("attn_mask", 3)}

# Methods (and the torch functions of the same name, self first) that raise unless their mask
# is a bool tensor: a tensor passed there is bool wherever the code runs. -> the mask's
# position among the method's arguments.
BOOL_ONLY_MASK_METHODS = {"masked_fill": 0, "masked_fill_": 0, "masked_scatter": 0,
                          "masked_scatter_": 0, "masked_select": 0}  # fmt: skip

# Decorators that make a function device code, not host code (the broadcast analysis skips
# them): Triton kernels, cuTile kernels and device functions, CuTe DSL kernels, TileLang
# primitive functions and macros, Helion kernels.
KERNEL_DECORATORS = frozenset(
    {"triton.jit", "triton.autotune", "triton.heuristics", "triton.runtime.jit.jit",
     "cuda.tile.kernel", "cuda.tile.function", "cutlass.cute.kernel",
     "tilelang.language.prim_func", "tilelang.language.macro", "helion.kernel"}
)  # fmt: skip
# Functions that launch a kernel given as an argument, with the kernel's arguments as a tuple:
# `ct.launch(stream, grid, kernel, (a, b))` -> (position of the kernel, of the argument tuple).
LAUNCH_FUNCTIONS = {"cuda.tile.launch": (2, 3)}
