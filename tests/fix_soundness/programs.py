"""A seeded generator of kernel-wrapper functions made of the constructs that once broke the
narrow-and-rescale fix, and of the arguments to call them with.

`generate_module(seed, functions)` returns the source of one module holding `functions`
independent functions (one *program* each: batching many in one module lets one fix run
and one parse serve them all) and, per function, a few calls: argument recipes (tensors with
drawn stride-0 dims, counts, dims, flags) that are rebuilt fresh for every run, so a run can
check what the function did to its arguments.

What a function holds (each drawn; `Program.features` names the ones used):

* a broadcast source: `x.expand(n, *x.shape)`, `x[None].expand(n, *x.shape)`,
  `x.unsqueeze(-1).expand(*x.shape, n)`, `torch.broadcast_to(x, (n, *x.shape))`,
  `x.expand_as(ref)`, `a, b = torch.broadcast_tensors(x, ref)`, a parameter whose docstring
  calls it broadcastable (ranks 0-4, any dims stride 0), a launch-metadata hook's
  `args["Mask"]` (the key may be missing), an attribute `o.mask`; base tensors with stride-0
  dims of their own, permuted or on a strided base, size-0 and size-1 dims;
* elementwise chains (comparisons with literals or an `int` parameter, casts, `.to(dtype)`,
  `abs`, `+ 1`, `* 2`, `~`, `clamp`, a float or int scalar parameter, `abs(t)` of a *tensor*
  `t`) and reductions (`sum`, `count_nonzero`, `any`, `all`, `amax`, `amin`, `max`, `min`,
  `prod`, `mean`, `nansum`, methods or `torch.*`), with `dim` absent, `None`, literal,
  negative, a tuple, a list, `()`, or a runtime parameter (int, tuple, list, None, `()`),
  `keepdim`, `dtype=`; partial reductions followed by non-linear ops and a full one;
* the shapes that broke soundness: the op inside `a if c else b`, `c and ...`, `... or c`,
  an `if` test after `"Mask" in args and`, `assert`, a chained comparison; in a
  comprehension (over `range`, or over a list whose variable shadows the source) or a
  generator expression; a walrus binding the source or the result; a derived name read by a
  closure, a lambda, an f-string, or kept in a global; the source rebound, transposed in
  place (`t_()`, `transpose_()`), or its attribute reassigned between two reductions; the
  runtime `dim` rebound between a partial and a full reduction; two fixes in one function;
  locals named like the fix's fresh names (`m_small`, `m_reps`, `m_small_1`), like its
  helpers (`_narrow_broadcast`) or `math`;
* module-level variety: `import math`, `import math as m` (while functions use `m` as a
  local), no math import, `import torch as th`, `torch` imported only under
  `if TYPE_CHECKING:` (the functions then use tensor methods only), module names that the
  fix's helpers would overwrite (`_repeats` imported from elsewhere, `_narrow_broadcast`
  assigned), read back by a function of their own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

import torch

DTYPES = {
    "bool": torch.bool,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}
KINDS = {"bool": ("bool",), "int": ("int32", "int64", "uint8"),
         "float": ("float32", "float64", "float16", "bfloat16")}  # fmt: skip


# ---- argument recipes ------------------------------------------------------------------------


@dataclass(frozen=True)
class TensorRecipe:
    """A tensor of logical `shape`: the dims in `broadcast` are expanded from size 1 (stride
    0), the tensor is built in `permutation` order and permuted back (stride-0 dims land
    anywhere), a strided base is `[..., ::2]` of a wider one; integer values in [-3, 3]
    (plus U[0, 0.5) for floats), drawn from `seed`."""

    shape: tuple[int, ...]
    dtype: str
    broadcast: tuple[int, ...] = ()
    permutation: tuple[int, ...] | None = None
    strided: bool = False
    seed: int = 0

    def build(self) -> torch.Tensor:
        order = self.permutation or tuple(range(len(self.shape)))
        built = [self.shape[d] for d in order]
        base_shape = [1 if d in self.broadcast else self.shape[d] for d in order]
        generator = torch.Generator().manual_seed(self.seed)
        wide = [*base_shape[:-1], 2 * base_shape[-1]] if self.strided and base_shape else base_shape
        ints = torch.randint(-3, 4, tuple(wide), generator=generator)
        dtype = DTYPES[self.dtype]
        if dtype == torch.bool:
            base = ints != 0
        elif dtype.is_floating_point:
            noise = torch.rand(tuple(wide), generator=generator, dtype=torch.float64) * 0.5
            base = (ints + noise).to(dtype)
        else:
            base = ints.to(dtype)
        if self.strided and base_shape:
            base = base[..., ::2]
        tensor = base.expand(built)
        if order != tuple(range(len(order))):
            tensor = tensor.permute(sorted(range(len(order)), key=order.__getitem__))
        return tensor


@dataclass(frozen=True)
class NamespaceRecipe:
    """A `SimpleNamespace` whose attributes are built from recipes (for `o.mask`)."""

    attributes: tuple[tuple[str, Any], ...]

    def build(self) -> SimpleNamespace:
        return SimpleNamespace(**{name: materialize(value) for name, value in self.attributes})


def materialize(value: Any) -> Any:
    """Fresh arguments from recipes (a run must not see another run's writes)."""
    if isinstance(value, (TensorRecipe, NamespaceRecipe)):
        return value.build()
    if isinstance(value, dict):
        return {key: materialize(item) for key, item in value.items()}
    if isinstance(value, list):
        return [materialize(item) for item in value]
    if isinstance(value, tuple):
        return tuple(materialize(item) for item in value)
    return value


@dataclass(frozen=True)
class Program:
    name: str
    calls: tuple[tuple, ...]  # argument recipes, one tuple per call
    features: frozenset[str]


@dataclass(frozen=True)
class GeneratedModule:
    seed: int
    source: str
    programs: tuple[Program, ...]


# ---- module style ----------------------------------------------------------------------------


@dataclass
class _Style:
    """What the whole module shares: how it imports torch and math, and names it binds that
    the fix's helpers and aliases must not take over."""

    torch: str | None  # the name functions call torch by; None: imported for type checking only
    header: list[str]
    module_names: list[str]  # module-level names a reader function returns
    features: set[str] = field(default_factory=set)


def _style(rng: random.Random) -> _Style:
    header, names, features = ["from types import SimpleNamespace"], [], set()
    torch_form = rng.choice(["torch", "torch", "torch", "th", "type_checking"])
    if torch_form == "type_checking":
        header += ["from typing import TYPE_CHECKING", "", "if TYPE_CHECKING:", "    import torch"]
        features.add("torch only under TYPE_CHECKING")
        torch_name = None
    elif torch_form == "th":
        header.append("import torch as th")
        features.add("import torch as th")
        torch_name = "th"
    else:
        header.append("import torch")
        torch_name = "torch"
    math_form = rng.choice(["math", "none", "none", "alias"])
    if math_form == "math":
        header.insert(0, "import math")
    elif math_form == "alias":
        header.insert(0, "import math as m")
        features.add("import math as m")
        names.append("m.pi")
    if rng.random() < 0.3:
        header.append("from operator import mul as _repeats")
        names.append("_repeats(2, 3)")
        features.add("helper name imported")
    if rng.random() < 0.3:
        header.append('_narrow_broadcast = "a module constant"')
        names.append("_narrow_broadcast")
        features.add("helper name assigned")
    if rng.random() < 0.2:
        header.append('_math = "not the math module"')
        names.append("_math")
        features.add("_math assigned")
    return _Style(torch_name, header, names, features)


# ---- one function --------------------------------------------------------------------------


@dataclass
class _Param:
    name: str
    annotation: str | None
    make: Callable[[random.Random, dict], Any]  # (rng, sizes of this call) -> recipe


def _size(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.1:
        return 0
    if roll < 0.8:
        return rng.randint(1, 4)
    return rng.randint(5, 9)


class _Builder:
    """Builds one function: parameters, docstring, body and the calls that fit them."""

    def __init__(self, rng: random.Random, style: _Style, name: str) -> None:
        self.rng = rng
        self.style = style
        self.name = name
        self.params: list[_Param] = []
        self.doc: list[str] = []
        self.body: list[str] = []
        self.features: set[str] = set()
        self.hook = False
        self.base_rank = 0
        self.dtype_kind = "bool"

    # -- parameters --

    def param(self, name: str, make, annotation: str | None = None) -> str:
        self.params.append(_Param(name, annotation, make))
        return name

    def tensor_param(
        self, name: str, shape_of: Callable[[dict], tuple], broadcast_chance=0.3, kind=None
    ):
        kind = kind or self.dtype_kind

        def make(rng: random.Random, sizes: dict) -> TensorRecipe:
            shape = shape_of(sizes)
            dims = tuple(d for d in range(len(shape)) if rng.random() < broadcast_chance)
            permutation = None
            if len(shape) > 1 and rng.random() < 0.3:
                permutation = tuple(rng.sample(range(len(shape)), len(shape)))
            dtype = rng.choice(KINDS[kind])
            return TensorRecipe(shape, dtype, dims, permutation, rng.random() < 0.2,
                                rng.randrange(10**6))  # fmt: skip

        return self.param(name, make)

    def emit(self, line: str) -> None:
        self.body.append(line)

    def torch(self) -> str | None:
        return self.style.torch

    # -- rendering --

    def source(self) -> str:
        if self.hook:
            signature = "grid, kernel, args"
        else:
            signature = ", ".join(
                f"{p.name}: {p.annotation}" if p.annotation else p.name for p in self.params
            )
        lines = [f"def {self.name}({signature}):"]
        if self.doc:
            lines.append('    """' + self.doc[0])
            lines += [f"    {line}" if line else "" for line in self.doc[1:]]
            lines.append('    """')
        lines += [f"    {line}" if line else "" for line in self.body]
        return "\n".join(lines) + "\n"

    def calls(self, count: int) -> tuple[tuple, ...]:
        drawn = []
        for _ in range(count):
            sizes = {f"s{i}": _size(self.rng) for i in range(5)}
            sizes["n"] = _size(self.rng)
            values = {p.name: p.make(self.rng, sizes) for p in self.params}
            if self.hook:
                drawn.append(((1, 1, 1), SimpleNamespace(name="k"), values))
            else:
                drawn.append(tuple(values[p.name] for p in self.params))
        return tuple(drawn)


# ---- sources -------------------------------------------------------------------------------


def _base_shape(rank: int) -> Callable[[dict], tuple]:
    return lambda sizes: tuple(sizes[f"s{i}"] for i in range(rank))


def _expanded_shape(rank: int, leading: bool = True) -> Callable[[dict], tuple]:
    def shape(sizes: dict) -> tuple:
        base = tuple(sizes[f"s{i}"] for i in range(rank))
        return (sizes["n"], *base) if leading else (*base, sizes["n"])

    return shape


def _source(b: _Builder) -> tuple[str, int]:
    """Emit code making a possibly broadcast tensor; return its expression and rank."""
    rng = b.rng
    torch_name = b.torch()
    kinds = ["expand", "none_index", "unsqueeze", "expand_as", "param", "param", "attribute"]
    if torch_name:
        kinds += ["broadcast_to", "broadcast_tensors"]
    kind = rng.choice(kinds)
    rank = rng.randint(0, 3)
    b.base_rank = rank
    b.features.add(f"source {kind}")
    if kind == "param":
        rank = rng.randint(0, 4)
        b.doc = ["Count things in `mask`.", "", "Args:", "    mask: a broadcastable mask."]
        b.tensor_param("mask", _base_shape(rank), broadcast_chance=0.5)
        return "mask", rank
    if kind == "attribute":
        shape = _base_shape(rank)
        kind_dtype = b.dtype_kind

        def make(rng: random.Random, sizes: dict) -> NamespaceRecipe:
            dtype = rng.choice(KINDS[kind_dtype])
            mask = TensorRecipe(shape(sizes), dtype, seed=rng.randrange(10**6))
            other = TensorRecipe(shape(sizes), dtype, seed=rng.randrange(10**6))
            return NamespaceRecipe((("mask", mask), ("other", other)))

        b.param("o", make)
        n = b.param("n", lambda rng, sizes: sizes["n"], "int")
        return f"o.mask.expand({n}, *o.mask.shape)", rank + 1
    b.tensor_param("x", _base_shape(rank))
    n = b.param("n", lambda rng, sizes: sizes["n"], "int" if rng.random() < 0.5 else None)
    if kind == "expand":
        b.emit(f"m = x.expand({n}, *x.shape)")
    elif kind == "none_index":
        b.emit(f"m = x[None].expand({n}, *x.shape)")
    elif kind == "unsqueeze":
        b.emit(f"m = x.unsqueeze(-1).expand(*x.shape, {n})")
    elif kind == "expand_as":
        b.tensor_param("ref", _expanded_shape(rank), broadcast_chance=0.0)
        b.emit("m = x.expand_as(ref)")
    elif kind == "broadcast_to":
        b.emit(f"m = {torch_name}.broadcast_to(x, ({n}, *x.shape))")
    else:
        b.tensor_param("ref", _expanded_shape(rank), broadcast_chance=0.0)
        b.emit(f"m, dense = {torch_name}.broadcast_tensors(x, ref)")
    return "m", rank + 1


# ---- elementwise ops and reductions ----------------------------------------------------------


def _elementwise(b: _Builder, expr: str, kind: str, logical_shape) -> tuple[str, str]:
    """One elementwise op on `expr` (of dtype kind `kind`); returns code and result kind."""
    rng = b.rng
    torch_name = b.torch()
    options: list[tuple[str, str]] = [
        (f"({expr} != 0)", "bool"), (f"({expr} > 0)", "bool"), (f"({expr} == 1)", "bool"),
        (f"{expr}.bool()", "bool"), (f"{expr}.int()", "int"), (f"{expr}.long()", "int"),
        (f"{expr}.float()", "float"), (f"(~({expr} > 0))", "bool"),
        (f"({expr} * 2)", "int" if kind == "bool" else kind),
    ]  # fmt: skip
    if kind != "bool":
        options += [
            (f"{expr}.abs()", kind), (f"({expr} + 1)", kind), (f"{expr}.clamp(min=0)", kind),
        ]  # fmt: skip
    if torch_name:
        options += [
            (f"{expr}.to({torch_name}.int32)", "int"), (f"{torch_name}.ne({expr}, 0)", "bool"),
        ]  # fmt: skip
        if kind != "bool":
            options.append((f"{torch_name}.abs({expr})", kind))
    roll = rng.random() if not b.hook else 1.0  # a hook has no parameters of its own
    if roll < 0.08:
        t = b.param("t", lambda rng, sizes: rng.randint(-2, 2), "int")
        b.features.add("compare with int param")
        return f"({expr} >= {t})", "bool"
    if roll < 0.14:
        annotation = rng.choice(["float", "int", None])
        w = b.param("w", lambda rng, sizes: rng.choice([2, 3, 0.5, -1.25]), annotation)
        b.features.add(f"scalar param {annotation}")
        return f"({expr} * {w})", "float"
    if roll < 0.2 and logical_shape is not None:
        b.tensor_param("tw", logical_shape, broadcast_chance=0.0, kind="float")
        b.features.add("abs of a tensor")
        return f"({expr} * abs(tw))", "float"
    return rng.choice(options)


def _chain(b: _Builder, expr: str, logical_shape) -> tuple[str, str]:
    """0-2 elementwise ops (none: the reduction reads the broadcast tensor itself, SL102)."""
    kind = b.dtype_kind
    for _ in range(b.rng.choice([0, 1, 1, 1, 2])):
        expr, kind = _elementwise(b, expr, kind, logical_shape)
    return expr, kind


def _dim_literal(rng: random.Random, rank: int) -> str:
    if rank == 0:
        return rng.choice(["0", "-1"])
    return str(rng.randint(-rank, rank - 1))


def _dims_value(rng: random.Random, rank: int) -> Any:
    """A runtime `dim`: an int, a tuple or list of distinct dims (maybe negative), None, ()."""
    roll = rng.random()
    if rank == 0:
        return rng.choice([0, -1, None, ()])
    if roll < 0.5:
        return rng.randint(-rank, rank - 1)
    if roll < 0.8:
        picked = rng.sample(range(rank), rng.randint(1, rank))
        dims = [d - rank if rng.random() < 0.3 else d for d in picked]
        return tuple(dims) if rng.random() < 0.6 else dims
    return rng.choice([None, ()])


def _reduction_options(kind: str) -> list[str]:
    options = ["sum", "sum", "count_nonzero", "any", "all", "amax", "amin", "max", "min"]
    if kind in ("bool", "int"):
        options.append("prod")
    if kind == "float":
        options += ["mean", "nansum"]
    return options


def _full(b: _Builder, expr: str, kind: str) -> str:
    rng = b.rng
    name = rng.choice(_reduction_options(kind))
    torch_name = b.torch()
    if name == "sum" and rng.random() < 0.15 and torch_name:
        b.features.add("sum dtype")
        dtype = rng.choice(["int64", "int32", "int8", "bool", "float32"])
        return f"{expr}.sum(dtype={torch_name}.{dtype})"
    if torch_name and rng.random() < 0.25 and name not in ("max", "min", "prod", "nansum"):
        return f"{torch_name}.{name}({expr})"
    if name == "sum" and rng.random() < 0.1:
        return f"{expr}.sum(dim=None)"
    return f"{expr}.{name}()"


def _partial(b: _Builder, expr: str, kind: str, rank: int) -> tuple[str, str, str | None]:
    """A reduction over some dims; returns code, result kind, and the runtime dim name."""
    rng = b.rng
    name = rng.choice(["sum", "sum", "count_nonzero", "any", "all", "amax", "amin"])
    roll = rng.random() if not b.hook else rng.random() * 0.55
    runtime = None
    if roll < 0.35:
        dim = _dim_literal(rng, rank)
        b.features.add("literal dim")
    elif roll < 0.5 and rank > 0:
        picked = rng.sample(range(rank), rng.randint(1, rank))
        dims = ", ".join(str(d - rank if rng.random() < 0.3 else d) for d in picked)
        dim = f"({dims},)" if rng.random() < 0.5 else f"[{dims}]"
        b.features.add("tuple dim")
    elif roll < 0.55:
        dim = "()"
        b.features.add("empty dims")
    else:
        runtime = b.param("dim", lambda rng, sizes: _dims_value(rng, rank))
        dim = runtime
        b.features.add("runtime dim")
    if name in ("count_nonzero",):
        keep = ""
    else:
        keep = rng.choice(["", "", ", keepdim=True", ", keepdim=False"])
        if keep:
            b.features.add("keepdim")
    result = "int" if name in ("sum", "count_nonzero") and kind != "float" else kind
    if name in ("any", "all"):
        result = "bool"
    if name == "count_nonzero":
        result = "int"
    torch_name = b.torch()
    if torch_name and rng.random() < 0.2:
        return f"{torch_name}.{name}({expr}, dim={dim}{keep})", result, runtime
    positional = name == "sum" and rng.random() < 0.2
    if positional:
        return f"{expr}.{name}({dim}{keep})", result, runtime
    return f"{expr}.{name}(dim={dim}{keep})", result, runtime


def _nonlinear(rng: random.Random, expr: str, kind: str) -> tuple[str, str]:
    if kind == "bool":
        return rng.choice([(f"({expr}.int() - 1)", "int"), (f"(~{expr})", "bool"), (expr, kind)])
    return rng.choice([
        (f"({expr} - 1).clamp(min=0)", kind), (f"({expr} > 1)", "bool"), (f"({expr} * 3)", kind),
    ])  # fmt: skip


def _reduce(b: _Builder, expr: str, kind: str, rank: int) -> str:
    """A full reduction of `expr`, sometimes through a partial one and non-linear ops."""
    if b.rng.random() < 0.45:
        partial, kind, _ = _partial(b, expr, kind, rank)
        after, kind = _nonlinear(b.rng, partial, kind)
        b.features.add("partial chain")
        return _full(b, after, kind)
    return _full(b, expr, kind)


# ---- patterns: how the op and its reductions sit in the function ----------------------------


def _logical_shape(b: _Builder, rank: int, source: str):
    """The logical shape of the source per call, for tensor operands of the same shape."""
    if source == "mask":
        return _base_shape(rank)
    if source.startswith("o.mask"):
        return None
    if "unsqueeze" in " ".join(b.body):
        return _expanded_shape(rank - 1, leading=False)
    return _expanded_shape(rank - 1)


def _pattern_direct(b: _Builder, src: str, rank: int, shape) -> None:
    expr, kind = _chain(b, src, shape)
    b.emit(f"return {_reduce(b, expr, kind, rank)}")


def _pattern_named(b: _Builder, src: str, rank: int, shape) -> None:
    expr, kind = _chain(b, src, shape)
    b.emit(f"e = {expr}")
    first = _reduce(b, "e", kind, rank)
    second = _reduce(b, "e", kind, rank)
    b.emit(f"return {first}, {second}")


def _pattern_partial_then_full(b: _Builder, src: str, rank: int, shape) -> None:
    expr, kind = _chain(b, src, shape)
    partial, kind, runtime = _partial(b, expr, kind, rank)
    b.emit(f"per = {partial}")
    if runtime and b.rng.random() < 0.5:
        b.emit(f"{runtime} = {b.rng.choice(['0', '-1', '()', 'None'])}")
        b.features.add("dim rebound")
    after, kind = _nonlinear(b.rng, "per", kind)
    b.emit(f"return {_full(b, after, kind)}")


def _pattern_guard(b: _Builder, src: str, rank: int, shape) -> None:
    annotation = "bool" if b.rng.random() < 0.5 else None
    c = b.param("c", lambda rng, sizes: rng.random() < 0.5, annotation)
    expr, kind = _chain(b, src, shape)
    reduced = _reduce(b, expr, kind, rank)
    form = b.rng.choice(["ifexp", "and", "or", "if", "assert", "elif", "while"])
    b.features.add(f"guard {form}")
    if form == "ifexp":
        b.emit(f"return {reduced} if {c} else -1")
    elif form == "and":
        b.emit(f"return {c} and {reduced}")
    elif form == "or":
        b.emit(f"return (not {c}) or {reduced}")
    elif form == "if":
        b.emit(f"if {c} and bool({reduced} >= 0):")
        b.emit("    return 1")
        b.emit("return 0")
    elif form == "assert":
        b.emit(f"assert {c} or bool({reduced} >= 0)")
        b.emit(f"return {reduced}")
    elif form == "elif":
        b.emit(f"if {c}:")
        b.emit("    return 0")
        b.emit(f"elif bool({reduced} > 0):")
        b.emit("    return 1")
        b.emit("return 2")
    else:  # the test runs once per iteration, and the source changes in between
        k = b.param("k", lambda rng, sizes: rng.randint(0, 3), "int")
        b.emit("i = 0")
        b.emit(f"while i < {k} and bool({reduced} >= 0):")
        b.emit("    i += 1")
        if src == "m":
            b.emit("    m = m.transpose(0, -1)")
        b.emit("return i")


def _pattern_comprehension(b: _Builder, src: str, rank: int, shape) -> None:
    k = b.param("k", lambda rng, sizes: rng.randint(0, 3), "int")
    expr, kind = _chain(b, src, shape)
    reduced = _reduce(b, expr, kind, rank)
    form = b.rng.choice(["list", "generator", "shadowing"]) if src == "m" else "list"
    b.features.add(f"comprehension {form}")
    if form == "list":
        b.emit(f"return [{reduced} for _ in range({k})]")
    elif form == "generator":
        b.emit(f"g = ({reduced} for _ in range({k}))")
        b.emit("return list(g)")
    else:  # the comprehension's variable has the source's name: it is another value
        b.emit(f"return [{reduced} for m in [x] * {k}]")


def _pattern_walrus(b: _Builder, src: str, rank: int, shape) -> None:
    expr, kind = _chain(b, src, shape)
    form = b.rng.choice(["result", "derived", "rebind_source"]) if src == "m" else "result"
    b.features.add(f"walrus {form}")
    if form == "result":
        b.emit(f"return (r := {_reduce(b, expr, kind, rank)}), r")
    elif form == "derived":
        b.emit(f"if (e := {expr}) is not None:")
        b.emit(f"    return {_reduce(b, 'e', kind, rank)}")
        b.emit("return None")
    else:
        b.emit(f"return (m := m.transpose(0, -1)).shape, {_reduce(b, expr, kind, rank)}")


def _pattern_escape(b: _Builder, src: str, rank: int, shape) -> None:
    expr, kind = _chain(b, src, shape)
    if b.rng.random() < 0.4:  # a partial result escapes
        partial, kind, _ = _partial(b, expr, kind, rank)
        b.emit(f"e = {partial}")
        b.features.add("escape of a partial result")
    else:
        b.emit(f"e = {expr}")
    form = b.rng.choice(["closure", "lambda", "fstring", "global"])
    b.features.add(f"escape {form}")
    total = _full(b, "e", kind)
    if form == "closure":
        b.emit("def inner():")
        b.emit("    return tuple(e.shape), e.is_contiguous()")
        b.emit(f"return {total}, inner()")
    elif form == "lambda":
        b.emit("peek = lambda: (tuple(e.shape), e.is_contiguous())")
        b.emit(f"return {total}, peek()")
    elif form == "fstring":
        b.emit('text = f"{tuple(e.shape)} {e.is_contiguous()}"')
        b.emit(f"return {total}, text")
    else:
        b.emit(f"global kept_{b.name}")
        b.emit(f"kept_{b.name} = e")
        b.emit(f"return {total}, tuple(kept_{b.name}.shape)")


def _pattern_change_between(b: _Builder, src: str, rank: int, shape) -> None:
    """Two reductions of the source with a change in between (the second fix may reuse the
    first's narrowing only when nothing changed)."""
    expr1, kind1 = _chain(b, src, shape)
    b.emit(f"a = {_reduce(b, expr1, kind1, rank)}")
    if src.startswith("o.mask"):
        b.emit("o.mask = o.other")
        b.features.add("attribute rebound")
    elif src == "m" and rank >= 2:
        in_place = "m.t_()" if rank == 2 else "m.transpose_(0, 1)"
        change = b.rng.choice([in_place, "m = m.transpose(0, 1)", "pass"])
        b.emit(change)
        b.features.add(f"between: {change}")
    elif src == "m":
        b.emit(b.rng.choice(["m = m + 0", "pass"]))
    b.emit(f"b = {_reduce(b, src if b.rng.random() < 0.5 else expr1, kind1, rank)}")
    b.emit("return a, b")


def _pattern_collisions(b: _Builder, src: str, rank: int, shape) -> None:
    taken = b.rng.sample(["m_small", "m_reps", "m_small_1", "m_narrowed", "mask_small",
                          "_narrow_broadcast", "math", "_repeats", "reps"], 3)  # fmt: skip
    b.features.add("colliding locals")
    for index, name in enumerate(taken):
        b.emit(f"{name} = {index + 10}")
    expr, kind = _chain(b, src, shape)
    first = _reduce(b, expr, kind, rank)
    expr2, kind2 = _chain(b, src, shape)
    second = _reduce(b, expr2, kind2, rank)
    b.emit(f"return {first}, {second}, {', '.join(taken)}")


def _pattern_loop(b: _Builder, src: str, rank: int, shape) -> None:
    k = b.param("k", lambda rng, sizes: rng.randint(0, 3), "int")
    expr, kind = _chain(b, src, shape)
    b.features.add("loop")
    b.emit("total = 0")
    b.emit(f"for i in range({k}):")
    b.emit(f"    total = total + {_reduce(b, expr, kind, rank)}")
    b.emit("return total")


def _pattern_chained_comparison(b: _Builder, src: str, rank: int, shape) -> None:
    """`0 <= t <= 9` calls bool(t): a narrowed tensor of one element passes where the
    original's many elements raise."""
    b.features.add("chained comparison")
    b.emit(f"e = ({src} != 0)")
    b.emit("return bool(0 <= e.sum(dim=0) <= 9), e.sum(), (0 < " + src + ").sum()")


_PATTERNS = [
    _pattern_direct, _pattern_direct, _pattern_named, _pattern_partial_then_full,
    _pattern_guard, _pattern_guard, _pattern_comprehension, _pattern_walrus, _pattern_escape,
    _pattern_change_between, _pattern_collisions, _pattern_loop, _pattern_chained_comparison,
]  # fmt: skip


def _hook(b: _Builder) -> None:
    """A launch-metadata hook whose `args` may lack the documented broadcast `Mask`."""
    b.hook = True
    b.doc = ["Launch metadata.", "", "Args:", "    Mask: a broadcastable mask."]
    rank = b.rng.randint(0, 4)
    kind = b.dtype_kind

    def make(rng: random.Random, sizes: dict) -> TensorRecipe:
        shape = _base_shape(rank)(sizes)
        dims = tuple(d for d in range(rank) if rng.random() < 0.5)
        return TensorRecipe(shape, rng.choice(KINDS[kind]), dims, seed=rng.randrange(10**6))

    b.params.append(
        _Param("Mask", None, lambda rng, sizes: make(rng, sizes) if rng.random() < 0.7 else None)
    )
    expr, kind = _chain(b, 'args["Mask"]', None)
    reduced = _reduce(b, expr, kind, rank)
    b.features.add("hook")
    b.emit(f'if "Mask" in args and args["Mask"] is not None and bool({reduced} > 0):')
    b.emit('    return {"name": "k", "hits": 1}')
    b.emit('return {"name": "k"}')


def _hook_calls(b: _Builder, count: int) -> tuple[tuple, ...]:
    calls = []
    for _ in range(count):
        sizes = {f"s{i}": _size(b.rng) for i in range(5)}
        mask = b.params[0].make(b.rng, sizes)
        args = {} if mask is None else {"Mask": mask}
        calls.append(((1, 1, 1), SimpleNamespace(name="k"), args))
    return tuple(calls)


def _function(rng: random.Random, style: _Style, name: str) -> tuple[str, Program]:
    b = _Builder(rng, style, name)
    b.dtype_kind = rng.choice(["bool", "bool", "int", "float"])
    if rng.random() < 0.08:
        _hook(b)
        calls = _hook_calls(b, 3)
        return b.source(), Program(name, calls, frozenset(b.features))
    src, rank = _source(b)
    shape = _logical_shape(b, rank, src)
    if src.startswith("o.mask") and rng.random() < 0.5:
        _pattern_change_between(b, src, rank, shape)
    else:
        rng.choice(_PATTERNS)(b, src, rank, shape)
    _dedupe_params(b)
    return b.source(), Program(name, b.calls(3), frozenset(b.features | style.features))


def _dedupe_params(b: _Builder) -> None:
    """A pattern may ask twice for one scalar parameter (`t`, `w`, `dim`): keep the first."""
    seen, kept = set(), []
    for param in b.params:
        if param.name not in seen:
            seen.add(param.name)
            kept.append(param)
    b.params = kept


def generate_module(seed: int, functions: int) -> GeneratedModule:
    rng = random.Random(seed)
    style = _style(rng)
    parts = ["\n".join(style.header) + "\n"]
    programs = []
    for index in range(functions):
        source, program = _function(rng, style, f"f{index}")
        parts.append(source)
        programs.append(program)
    if style.module_names:
        parts.append(f"def module_names():\n    return ({', '.join(style.module_names)},)\n")
        programs.append(Program("module_names", ((),), frozenset({"module names read back"})))
    return GeneratedModule(seed, "\n\n".join(parts), tuple(programs))
