"""A Hypothesis strategy for random, valid kernel-wrapper-like modules, and how to call them.

`modules()` draws a `GeneratedModule`: the source text of a module holding one to three
host functions (plus, at times, a helper one of them calls and a launch-metadata hook), and,
as data beside the text, `CallSpec`s (two per function by default): argument values
(broadcast tensors as `TensorSpec`s, ints, dims, flags, a hook's `args` dict) that fit the
code that was generated. Sizes are symbols in the code model (`n`, `L`, ...) and drawn per
call, so one module is run on several shapes and stride patterns.

What the functions contain (each piece drawn at random; `features` names the ones used):

* broadcast sources: `x.expand(n, -1)`, `x.expand(n, -1, -1)`, `x[:, None].expand(-1, n)`,
  `torch.broadcast_to(x, (n, *x.shape))`, `x.expand_as(ref)`, `a2, b2 =
  torch.broadcast_tensors(a, b)`, a source chosen in an `if`/`else` (both branches expand,
  or one passes a dense tensor), and views or aliases of those (`.t()`, `.unsqueeze(0)`);
* parameters with evidence that callers pass broadcast tensors: a docstring entry that says
  "broadcastable" (Google, Sphinx or prose style), a jaxtyping-style `#` annotation (the
  whole annotation quoted, `"Bool[Tensor, '#b n']"`, or unquoted under
  `from __future__ import annotations`: neither needs jaxtyping), or a stride check
  `p.stride(0) == 0`; calls pass them tensors with drawn stride-0 dims (sometimes none),
  permuted or on a strided base;
* plain parameters without evidence (dense operands; functions with nothing to report);
* elementwise chains: comparisons with literals or with an (`int`-annotated or plain)
  threshold, `+ 1`, `* 2`, `- 1`, `~`, `.float()`, `.int()`, `.long()`, `.bool()`,
  `.to(torch.<dtype>)`, `.abs()`, `.clamp(min=0)`, `torch.abs`, and ops of two same-shaped
  tensors (broadcast or dense);
* reductions `sum` (also with `dtype=`), `count_nonzero`, `any`, `all`, `amax`, `amin`,
  `max()`/`min()`, `mean` (float; rarely on ints, which raises in both forms), `prod`
  (bool/int), as methods or `torch.*` functions, with `dim` omitted, `None`, an int
  (negative too, positional or keyword), a tuple or list, `()`/`[]` (every dim; for
  `any`/`all` no dim), or a runtime parameter (int, tuple, list, None or ()), and `keepdim`;
* chains through a partial reduction, `(m.sum(dim=d) - 1).clamp(min=0).sum()` and the like
  (only continuous ops after a float sum or mean, whose rounding may differ);
* named masks reduced several times, aliases, rebinding a name to another value,
  `if`/`elif`/`else` (the reduction in a branch or in the test), conditional expressions,
  `for i in range(k)` accumulation (`+` and `+=`), `with torch.no_grad():`, `try`/`except`,
  the walrus operator, `int(...)`/`.item()`, a reduction written straight into `return`,
  copies (`.contiguous()`, `.clone()`) then reduced, elementwise or partial results kept;
* a module function called with an expanded tensor (facts flow into the callee), and a
  launch-metadata hook `(grid, kernel, args)` whose docstring documents an `args` entry as
  broadcastable;
* surface variety: `import torch as th`, `from torch import broadcast_to`, a module
  docstring, `@torch.no_grad()`, comments and `# noqa: SL101`, expressions split over
  lines, tab or two-space indentation, CRLF newlines;
* the results, mostly full reductions, returned as a tuple (a dict from a hook).

`Options` switches constructs that hit tool bugs found with this generator: off while the
bug is open (pinned as a strict xfail in test_generated_modules.py), on once it is fixed.
Draws are arranged so that 0, which Hypothesis favours and shrinks to, takes the common path.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

import torch
from hypothesis import strategies as st

Draw = Callable[[st.SearchStrategy], Any]
Shape = tuple  # of size symbols (str) and literal sizes (int)

MAX_NUMEL = 3000  # logical elements of the largest tensor a call builds

TORCH_DTYPES = {
    "bool": torch.bool,
    "int32": torch.int32,
    "int64": torch.int64,
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}
KIND = {"bool": "bool", "int32": "int", "int64": "int"} | {
    name: "float" for name in ("float32", "float64", "float16", "bfloat16")
}
# Weighted choices (repeats raise the weight).
_DTYPE_CHOICES = ("bool", "bool", "bool", "int32", "int32", "int64",
                  "float32", "float32", "float64", "float16", "bfloat16")  # fmt: skip


@functools.cache
def _int(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@functools.cache
def _pick(options: tuple) -> st.SearchStrategy:
    return st.sampled_from(options)


def _choose(draw: Draw, items):
    """One of `items` (which need not be hashable)."""
    items = list(items)
    return items[draw(_int(0, len(items) - 1))]


def _chance(draw: Draw, percent: int) -> bool:
    """True `percent` % of the time; False for the draw Hypothesis shrinks to (and repeats
    most often), so the simplest module takes the common path everywhere."""
    return draw(_int(0, 99)) >= 100 - percent


# ---- what a call passes --------------------------------------------------------------------


@dataclass(frozen=True)
class TensorSpec:
    """A tensor of logical `shape` and `dtype`: the dims in `broadcast` come from a size-1
    base through `expand` (stride 0), the tensor is built in `permutation` order and permuted
    back (so stride-0 dims land anywhere), and a strided base is `[..., ::2]` of a wider one.
    Values are integers in [-3, 3] (plus U[0, 0.5) for floats), from `seed`."""

    shape: tuple[int, ...]
    dtype: str
    broadcast: tuple[int, ...] = ()
    permutation: tuple[int, ...] | None = None
    strided_base: bool = False
    seed: int = 0

    def build(self) -> torch.Tensor:
        ndim = len(self.shape)
        order = self.permutation or tuple(range(ndim))
        built_shape = [self.shape[d] for d in order]
        base_shape = [1 if d in self.broadcast else self.shape[d] for d in order]
        if self.strided_base and base_shape:
            wide = _values([*base_shape[:-1], 2 * base_shape[-1]], self.dtype, self.seed)
            base = wide[..., ::2]
        else:
            base = _values(base_shape, self.dtype, self.seed)
        tensor = base.expand(built_shape)
        inverse = sorted(range(ndim), key=order.__getitem__)
        tensor = tensor.permute(inverse) if order != tuple(range(ndim)) else tensor
        assert tuple(tensor.shape) == self.shape
        return tensor

    def __repr__(self) -> str:
        extra = f", stride0={self.broadcast}" if self.broadcast else ""
        extra += f", perm={self.permutation}" if self.permutation else ""
        extra += ", strided" if self.strided_base else ""
        return f"T({self.dtype}, {self.shape}{extra}, seed={self.seed})"


def _values(shape, dtype: str, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    ints = torch.randint(-3, 4, tuple(shape), generator=generator)
    if dtype == "bool":
        return ints != 0
    torch_dtype = TORCH_DTYPES[dtype]
    if not torch_dtype.is_floating_point:
        return ints.to(torch_dtype)
    noise = torch.rand(tuple(shape), generator=generator, dtype=torch.float64) * 0.5
    return (ints + noise).to(torch_dtype)


KERNEL = SimpleNamespace(name="k")  # what Triton passes a launch-metadata hook as `kernel`
GRID = (1, 1, 1)


def materialize(value: Any) -> Any:
    if isinstance(value, TensorSpec):
        return value.build()
    if isinstance(value, dict):
        return {key: materialize(item) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class CallSpec:
    function: str
    args: tuple

    def arguments(self) -> tuple:
        """Fresh tensors on every call (a function must not see another's writes)."""
        return tuple(materialize(a) for a in self.args)


@dataclass(frozen=True)
class GeneratedModule:
    source: str
    calls: tuple[CallSpec, ...]
    features: frozenset[str]

    def __repr__(self) -> str:  # what Hypothesis prints for a falsifying example
        calls = "\n".join(f"#   {c.function}{c.args!r}" for c in self.calls)
        return f"GeneratedModule(\n{self.source}\n# calls:\n{calls}\n)"


@dataclass(frozen=True)
class Options:
    """Constructs that triggered tool bugs found with this generator (on once fixed)."""

    rebind_from_itself: bool = True  # `m = m.int() + 1` after `m = xe != 0`
    # Evidence a text pre-filter could not see: a word or `#` split by a backslash line
    # continuation inside the string, or a docstring of implicitly concatenated pieces.
    split_evidence: bool = True


DEFAULT = Options()


# ---- the code model ------------------------------------------------------------------------


@dataclass
class Var:
    """A tensor-valued expression in the generated code."""

    code: str  # a name, or an atom (parenthesized or a call)
    shape: Shape  # of size symbols and literal ints
    kind: str  # "bool" | "int" | "float"
    definite: bool = False  # a broadcast source of this function (not a parameter)
    exact: bool = True  # False after a float sum or mean (its rounding may differ)


@dataclass
class _Param:
    name: str
    annotation: str | None
    value: Callable[[Draw, dict[str, int]], Any]  # (draw, sizes) -> call value


@dataclass
class _Module:
    draw: Draw
    options: Options
    torch: str = "torch"
    future_annotations: bool = False
    features: set[str] = field(default_factory=set)
    functions: list[_Function] = field(default_factory=list)
    helper_count: int = 0
    from_imports: bool = False  # `from torch import broadcast_to, ...`
    imported: set[str] = field(default_factory=set)


class _Function:
    def __init__(self, module: _Module, name: str, *, hook: bool = False) -> None:
        self.module = module
        self.draw = module.draw
        self.name = name
        self.hook = hook
        self.params: list[_Param] = []
        self.hook_entries: dict[str, Callable] = {}  # args["Key"] -> value drawer
        self.prologue: list[tuple[str, str]] = []  # (local name, args key) in a hook
        self.doc: list[str] = []
        self.body: list[str] = []
        self.taken: set[str] = {"torch", "math", "i", "grid", "kernel", "args", name}
        self.symbols: set[str] = set()
        self.count_code: str | None = None  # the name (or literal) holding the copies count
        self.pool: list[Var] = []  # tensors results may start from
        self.results: list[str] = []
        self.flag: str | None = None
        self.threshold: str | None = None
        self.decorated = False
        self.concatenated_doc = False  # the docstring as implicitly concatenated pieces

    # -- names and parameters --

    def fresh(self, stem: str) -> str:
        name, counter = stem, 1
        while name in self.taken:
            name, counter = f"{stem}{counter}", counter + 1
        self.taken.add(name)
        return name

    def param(self, stem: str, value, annotation: str | None = None) -> str:
        """A parameter (or, in a hook, an `args` entry bound to a local name)."""
        if self.hook:
            stem_key = key = stem[:1].upper() + stem[1:]
            counter = 1
            while key in self.hook_entries:
                key, counter = f"{stem_key}{counter}", counter + 1
            local = self.fresh(stem)
            self.hook_entries[key] = value
            self.prologue.append((local, key))
            return local
        name = self.fresh(stem)
        self.params.append(_Param(name, annotation, value))
        return name

    def symbol(self, stem: str) -> str:
        name, counter = stem, 1
        while name in self.symbols:
            name, counter = f"{stem}{counter}", counter + 1
        self.symbols.add(name)
        return name

    def count(self) -> str:
        """The copies count `n` (one per function, so expanded sources share their shape)."""
        if self.count_code is None:
            self.symbols.add("n")
            annotation = "int" if _chance(self.draw, 30) else None
            self.count_code = self.param("n", lambda draw, sizes: sizes["n"], annotation)
        return self.count_code

    def emit(self, line: str, indent: int = 0) -> None:
        self.body.append("    " * indent + line)

    def tensor_param(self, stem: str, shape: Shape, dtype: str, *, broadcastable: bool,
                     annotation: str | None = None) -> str:  # fmt: skip
        return self.param(stem, _tensor_drawer(shape, dtype, broadcastable), annotation)

    def condition(self) -> str:
        counted = self.count_code is not None and self.count_code.isidentifier()
        if counted and _chance(self.draw, 60):
            return f"{self.count_code} > {self.draw(_int(0, 3))}"
        if self.flag is None:
            annotation = "bool" if _chance(self.draw, 50) else None
            self.flag = self.param("flag", lambda draw, sizes: draw(st.booleans()), annotation)
        return self.flag

    def scalar_threshold(self) -> str:
        if self.threshold is None:
            annotation = "int" if _chance(self.draw, 70) else None
            self.threshold = self.param(
                "thr", lambda draw, sizes: draw(_int(-1, 2)), annotation
            )
            self.module.features.add("scalar_param" + ("_int" if annotation else "_plain"))
        return self.threshold

    # -- rendering --

    def render(self) -> str:
        if self.hook:
            signature = "grid, kernel, args"
        else:
            parts = [p.name + (f": {p.annotation}" if p.annotation else "") for p in self.params]
            signature = ", ".join(parts)
        lines = [f"@{self.module.torch}.no_grad()"] if self.decorated else []
        lines.append(f"def {self.name}({signature}):")
        if self.doc and self.concatenated_doc:
            text = "\n".join(["Launch helper (generated).", "", *self.doc])
            pieces = [p for line in text.splitlines(keepends=True) for p in line.split("\x01")]
            lines.append("    (")
            lines.extend("        " + _string_literal(p) for p in pieces)
            lines.append("    )")
        elif self.doc:
            lines.append('    """Launch helper (generated).')
            lines.append("")
            lines.extend("    " + d.replace("\x01", "") if d else "" for d in self.doc)
            lines.append('    """')
        if self.prologue:
            if len(self.prologue) > 1 and _chance(self.draw, 50):
                names = ", ".join(local for local, _ in self.prologue)
                values = ", ".join(f'args["{key}"]' for _, key in self.prologue)
                lines.append(f"    {names} = {values}")
            else:
                lines.extend(f'    {local} = args["{key}"]' for local, key in self.prologue)
        lines.extend("    " + line for line in self.body)
        if self.hook:
            items = ", ".join(f'"r{i}": {r}' for i, r in enumerate(self.results))
            lines.append(f'    return {{"name": "{self.name}", {items}}}')
        elif len(self.results) == 1 and _chance(self.draw, 30):
            lines.append(f"    return {self.results[0]}")
        else:
            trailing = "," if len(self.results) == 1 else ""
            lines.append(f"    return {', '.join(self.results)}{trailing}")
        return "\n".join(lines)

    def call(self, draw: Draw) -> CallSpec:
        sizes = _draw_sizes(draw, self.symbols)
        if self.hook:
            entries = {key: value(draw, sizes) for key, value in self.hook_entries.items()}
            return CallSpec(self.name, (GRID, KERNEL, entries))
        return CallSpec(self.name, tuple(p.value(draw, sizes) for p in self.params))


def _string_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _tensor_drawer(shape: Shape, dtype: str, broadcastable: bool):
    def value(draw: Draw, sizes: dict[str, int]) -> TensorSpec:
        concrete = tuple(sizes[s] if isinstance(s, str) else s for s in shape)
        ndim = len(concrete)
        broadcast: tuple[int, ...] = ()
        permutation = None
        if ndim and broadcastable:
            mask = draw(_int(0, 2**ndim - 1))
            if _chance(draw, 15):
                mask = 0  # dense
            broadcast = tuple(d for d in range(ndim) if mask >> d & 1)
        if ndim > 1 and _chance(draw, 40):
            order = draw(st.permutations(range(ndim)))
            permutation = tuple(order) if list(order) != list(range(ndim)) else None
        strided = ndim > 0 and _chance(draw, 30)
        seed = draw(_int(0, 2**31 - 1))
        return TensorSpec(concrete, dtype, broadcast, permutation, strided, seed)

    return value


def _draw_size(draw: Draw) -> int:
    code = draw(_int(0, 99))
    if code < 70:
        return 1 + code % 5  # 1..5
    if code < 80:
        return code % 6  # 0..5
    return 6 + code % 15  # 6..20


def _draw_sizes(draw: Draw, symbols: set[str]) -> dict[str, int]:
    sizes = {s: _draw_size(draw) for s in sorted(symbols)}
    while math.prod(sizes.values()) > MAX_NUMEL:
        largest = max(sizes, key=sizes.__getitem__)
        sizes[largest] = max(1, sizes[largest] // 2)
    return sizes


# ---- broadcast sources ---------------------------------------------------------------------


def _dtype(draw: Draw, kinds: tuple[str, ...] = ("bool", "int", "float")) -> str:
    options = tuple(d for d in _DTYPE_CHOICES if KIND[d] in kinds)
    return draw(_pick(options))


def _qualified(fn: _Function, name: str) -> str:
    """`torch.name`, or the bare name the module imported with `from torch import name`."""
    if fn.module.from_imports:
        fn.module.imported.add(name)
        return name
    return f"{fn.module.torch}.{name}"


def _source(fn: _Function) -> list[Var]:
    """Emit the statements that make one or two broadcast tensors; return them."""
    draw, t = fn.draw, fn.module.torch
    features = fn.module.features
    kind = draw(_int(0, 11))
    dtype = _dtype(draw)
    if kind <= 1:  # x.expand(n, -1)
        n = fn.count()
        L = fn.symbol("L")
        shape = (L,) if kind == 0 else (1, L)
        x = fn.tensor_param("x", shape, dtype, broadcastable=True)
        name = fn.fresh(f"{x}e")
        fn.emit(f"{name} = {x}.expand({n}, -1)")
        features.add("src_expand")
        return [Var(name, ("n", L), KIND[dtype], definite=True)]
    if kind == 2:  # x.expand(n, -1, -1)
        n = fn.count()
        L, M = fn.symbol("L"), fn.symbol("M")
        shape = (L, M) if _chance(draw, 50) else (1, L, M)
        x = fn.tensor_param("x", shape, dtype, broadcastable=True)
        name = fn.fresh(f"{x}e")
        fn.emit(f"{name} = {x}.expand({n}, -1, -1)")
        features.add("src_expand3")
        return [Var(name, ("n", L, M), KIND[dtype], definite=True)]
    if kind == 3:  # x[:, None].expand(-1, n)
        n = fn.count()
        L = fn.symbol("L")
        x = fn.tensor_param("x", (L,), dtype, broadcastable=True)
        name = fn.fresh(f"{x}c")
        fn.emit(f"{name} = {x}[:, None].expand(-1, {n})")
        features.add("src_none_expand")
        return [Var(name, (L, "n"), KIND[dtype], definite=True)]
    if kind == 4:  # torch.broadcast_to(x, (n, *x.shape))
        n = fn.count()
        shape = tuple(fn.symbol(s) for s in ("L", "M")[: draw(_int(1, 2))])
        x = fn.tensor_param("x", shape, dtype, broadcastable=True)
        name = fn.fresh(f"{x}b")
        fn.emit(f"{name} = {_qualified(fn, 'broadcast_to')}({x}, ({n}, *{x}.shape))")
        features.add("src_broadcast_to")
        return [Var(name, ("n", *shape), KIND[dtype], definite=True)]
    if kind == 5:  # x.expand_as(ref)
        n = fn.count()
        L = fn.symbol("L")
        ref = fn.tensor_param("ref", ("n", L), "float32", broadcastable=False)
        x = fn.tensor_param("x", (L,) if _chance(draw, 50) else (1, L), dtype, broadcastable=True)
        name = fn.fresh(f"{x}e")
        fn.emit(f"{name} = {x}.expand_as({ref})")
        features.add("src_expand_as")
        return [Var(name, ("n", L), KIND[dtype], definite=True)]
    if kind == 6:  # a2, b2 = torch.broadcast_tensors(a, b)
        K, L = fn.symbol("K"), fn.symbol("L")
        other = _dtype(draw)
        a = fn.tensor_param("a", (K, 1), dtype, broadcastable=True)
        b = fn.tensor_param("b", (L,) if _chance(draw, 50) else (1, L), other, broadcastable=True)
        a2, b2 = fn.fresh(f"{a}2"), fn.fresh(f"{b}2")
        fn.emit(f"{a2}, {b2} = {_qualified(fn, 'broadcast_tensors')}({a}, {b})")
        features.add("src_broadcast_tensors")
        return [Var(a2, (K, L), KIND[dtype], definite=True),
                Var(b2, (K, L), KIND[other], definite=True)]  # fmt: skip
    if kind == 7:  # chosen in a branch
        n = fn.count()
        L = fn.symbol("L")
        x = fn.tensor_param("x", (L,), dtype, broadcastable=True)
        name = fn.fresh(f"{x}e")
        fn.emit(f"if {fn.condition()}:")
        fn.emit(f"{name} = {x}.expand({n}, -1)", 1)
        fn.emit("else:")
        if _chance(fn.draw, 50):
            fn.emit(f"{name} = {_qualified(fn, 'broadcast_to')}({x}, ({n}, {x}.shape[-1]))", 1)
            features.add("src_branch_both")
            definite = True
        else:
            dense = fn.tensor_param("dense", ("n", L), dtype, broadcastable=False)
            fn.emit(f"{name} = {dense}", 1)
            features.add("src_branch_one")
            definite = False
        return [Var(name, ("n", L), KIND[dtype], definite=definite)]
    return [_evidence_param(fn, dtype)]  # kinds 8-11


_ANNOTATION_NAMES = {"bool": "Bool", "int": "Int", "float": "Float"}
_DIM_NAMES = ("b", "n", "k")


def _evidence_param(fn: _Function, dtype: str) -> Var:
    """A parameter whose evidence says callers may pass a stride-0 tensor."""
    draw = fn.draw
    features = fn.module.features
    if fn.pool and _chance(draw, 40):
        shape = _choose(draw, [v.shape for v in fn.pool])  # same shape as another source
    else:
        shape = tuple(fn.symbol(s) for s in ("P", "Q", "R")[: draw(_int(1, 3))])
    evidence = draw(_pick(("doc", "doc", "annotation", "annotation", "stride", "none")))
    if fn.hook:
        evidence = "doc"
    annotation = None
    escaped = _chance(draw, 10)  # `\x63` for "c", `\x23` for "#"
    split = fn.module.options.split_evidence and _chance(draw, 70)
    if escaped or split:
        features.add("split_evidence" if split else "escaped_evidence")
    if evidence == "annotation":
        mark = "\\x23" if escaped else "#"
        hashed = " ".join(
            (mark if draw(st.booleans()) or i == 0 else "") + _DIM_NAMES[i % 3]
            for i in range(len(shape))
        )
        if split:  # `"\<newline>#b n"`: the string's first line holds no `#`
            hashed = "\\\n" + hashed
        head = _ANNOTATION_NAMES[KIND[dtype]]
        if _chance(draw, 50):
            annotation = f"\"{head}[Tensor, '{hashed}']\""
            features.add("ev_annotation_quoted")
        else:
            annotation = f'{head}[Tensor, "{hashed}"]'
            fn.module.future_annotations = True
            features.add("ev_annotation_future")
    stem = draw(_pick(("mask", "p", "keep", "scale", "w")))
    name = fn.tensor_param(stem, shape, dtype, broadcastable=True, annotation=annotation)
    if evidence == "doc":
        doc_name = fn.prologue[-1][1] if fn.hook else name
        word = "broad\\x63ast" if escaped else "broadcast"
        if split:
            if _chance(draw, 50):
                word = "broad\\\ncast"  # a line continuation inside the docstring
            else:
                word = "broad\x01cast"  # a piece boundary in a concatenated docstring
                fn.concatenated_doc = True
        style = draw(_int(0, 2))
        if style == 0:
            if "Args:" not in fn.doc:
                fn.doc.append("Args:")
            fn.doc.append(f"    {doc_name}: a tensor of the output's shape, or {word}able to it.")
        elif style == 1:
            fn.doc.append(f":param {doc_name}: may be {word} (stride 0) along any dim.")
        else:
            fn.doc.append(f"`{doc_name}` may be a {word} view of a smaller tensor.")
        features.add("ev_docstring")
    elif evidence == "stride":
        d = draw(_int(-len(shape), len(shape) - 1))
        if _chance(draw, 50):
            fn.emit(f"rows_repeat = {name}.stride({d}) == 0")
        else:
            fn.emit(f"if {name}.stride()[{d}] == 0:")
            fn.emit("pass", 1)
        features.add("ev_stride_check")
    elif evidence == "none":
        features.add("ev_none")
    return Var(name, shape, KIND[dtype])


# ---- elementwise chains --------------------------------------------------------------------


def _atom(code: str) -> str:
    """Code that a method call can follow."""
    if code.replace("_", "a").isalnum() or code.endswith(")") and _balanced_call(code):
        return code
    return f"({code})"


def _balanced_call(code: str) -> bool:
    """`x.float()` or `(a + 1)`: one atom, not `a + f(b)`."""
    depth = 0
    for char in code:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0 and char in " +-*/&|~<>=!":
            return False
    return True


_COMPARISONS = {"ne0": "!= 0", "gt0": "> 0", "eq1": "== 1", "lt2": "< 2", "ge_half": ">= 0.5"}


def _elementwise(fn: _Function, var: Var, *, continuous_only: bool = False) -> Var:
    """One elementwise op applied to `var`."""
    draw, t = fn.draw, fn.module.torch
    kind, code = var.kind, var.code
    options = ["add1", "mul2", "float"]
    if kind != "bool":
        options += ["sub1", "abs", "clamp", "torch_abs"]
    if not continuous_only:
        options += ["ne0", "gt0", "eq1", "lt2", "int", "long", "bool", "thr", "to"]
        if kind != "float":
            options += ["invert"]
        if kind == "float" and var.exact:
            options += ["ge_half"]
    if continuous_only and kind == "float":
        options.remove("float")
    op = draw(_pick(tuple(options)))
    a = _atom(code)
    if op in _COMPARISONS:
        return Var(f"{a} {_COMPARISONS[op]}", var.shape, "bool")
    if op == "thr":
        return Var(f"{a} > {fn.scalar_threshold()}", var.shape, "bool")
    if op == "invert":
        return Var(f"~{a}", var.shape, kind)
    if op == "add1":
        return Var(f"{a} + 1", var.shape, "int" if kind == "bool" else kind, exact=var.exact)
    if op == "mul2":
        return Var(f"{a} * 2", var.shape, "int" if kind == "bool" else kind, exact=var.exact)
    if op == "sub1":
        return Var(f"{a} - 1", var.shape, kind, exact=var.exact)
    if op == "float":
        return Var(f"{a}.float()", var.shape, "float", exact=var.exact)
    if op == "int":
        return Var(f"{a}.int()", var.shape, "int")
    if op == "to":
        dtype = draw(_pick(("float32", "int64", "float64")))
        return Var(f"{a}.to({t}.{dtype})", var.shape, KIND[dtype], exact=var.exact)
    if op == "long":
        return Var(f"{a}.long()", var.shape, "int")
    if op == "bool":
        return Var(f"{a}.bool()", var.shape, "bool")
    if op == "abs":
        return Var(f"{a}.abs()", var.shape, kind, exact=var.exact)
    if op == "torch_abs":
        return Var(f"{t}.abs({code})", var.shape, kind, exact=var.exact)
    assert op == "clamp"
    return Var(f"{a}.clamp(min=0)", var.shape, kind, exact=var.exact)


def _chain(fn: _Function, var: Var, low: int, high: int) -> Var:
    for _ in range(fn.draw(_int(low, high))):
        var = _elementwise(fn, var)
    return var


def _maybe_scaled(fn: _Function, var: Var) -> Var:
    """`(m * scale)` with a `float`-annotated scalar parameter: a float result, although
    every tensor operand may be bool or int."""
    if fn.hook or not _chance(fn.draw, 15):
        return var
    scale = fn.param("scale", lambda draw, sizes: draw(_int(1, 400)) / 97, "float")
    fn.module.features.add("float_scalar_operand")
    return Var(f"{_atom(var.code)} * {scale}", var.shape, "float", exact=var.exact)


# ---- reductions ----------------------------------------------------------------------------

_FULL_OPS = {
    "bool": ("sum", "sum", "count_nonzero", "any", "all", "amax", "amin", "prod"),
    "int": ("sum", "sum", "count_nonzero", "any", "all", "amax", "amin", "prod"),
    "float": ("sum", "sum", "mean", "mean", "count_nonzero", "any", "all", "amax", "amin"),
}
_INEXACT_FLOAT_OPS = ("sum", "mean", "amax", "amin")  # after a float sum or mean
_RESULT_KIND = {"sum": None, "count_nonzero": "int", "any": "bool", "all": "bool",
                "amax": None, "amin": None, "max": None, "min": None, "prod": None,
                "mean": "float"}  # fmt: skip


def _result_kind(op: str, kind: str) -> str:
    fixed = _RESULT_KIND[op]
    if fixed:
        return fixed
    if op in ("sum", "prod") and kind == "bool":
        return "int"
    return kind


def _op_for(fn: _Function, var: Var, partial: bool) -> str:
    ops = _FULL_OPS[var.kind] if var.exact else _INEXACT_FLOAT_OPS
    if var.kind == "int" and _chance(fn.draw, 1):
        return "mean"  # raises in both forms
    if not partial and _chance(fn.draw, 8):
        return fn.draw(_pick(("max", "min")))  # without a dim: a full reduction
    return fn.draw(_pick(ops))


def _dims_code(draw: Draw, dims: tuple[int, ...], ndim: int) -> str:
    written = [d - ndim if draw(st.booleans()) else d for d in dims]
    if len(written) == 1 and _chance(draw, 40):
        return f"({written[0]},)"
    if _chance(draw, 30):
        return "[" + ", ".join(map(str, written)) + "]"
    return "(" + ", ".join(map(str, written)) + ")"


def _runtime_dims(draw: Draw, op: str, ndim: int, partial: bool):
    """A value for a runtime `dim` parameter: (value, reduces-every-dim)."""
    choices = ["int", "int", "tuple", "list"]
    if op == "prod":
        choices = ["int"]
    elif not partial:
        choices = ["all_tuple"]
        if op not in ("amax", "amin"):
            choices.append("none")
        if op not in ("any", "all"):
            choices.append("empty")
    kind = draw(_pick(tuple(choices)))
    if kind == "int":
        d = draw(_int(-ndim, ndim - 1))
        return d, ndim == 1
    if kind == "none":
        return None, True
    if kind == "empty":
        return (), op not in ("any", "all")
    if kind == "all_tuple":
        return tuple(d - ndim if draw(st.booleans()) else d for d in range(ndim)), True
    subset = draw(_int(1, 2**ndim - 1))
    dims = [d - ndim if draw(st.booleans()) else d for d in range(ndim) if subset >> d & 1]
    value = tuple(dims) if kind == "tuple" else dims
    return value, len(dims) == ndim


def _reduce(fn: _Function, var: Var, *, partial: bool, op: str | None = None) -> Var:
    """`var` reduced: over every dim (partial=False) or over some (partial=True, which needs
    ndim >= 2 to keep a dim; with ndim 1 it reduces everything)."""
    draw, t = fn.draw, fn.module.torch
    op = op or _op_for(fn, var, partial)
    ndim = len(var.shape)
    dim_code: str | None = None
    positional = False
    reduced: set[int] | None = None  # None: every dim
    form = draw(_int(0, 9))
    if not partial and (ndim == 0 or op in ("max", "min")):
        pass  # a 0-d tensor, or max/min (with a dim they return values and indices)
    elif not partial:
        if op == "prod":
            if ndim == 1 and form < 3:
                dim_code, positional = str(draw(_pick((0, -1)))), form == 0
        elif form < 5:
            pass  # no dim
        elif form == 5 and op not in ("amax", "amin"):
            dim_code = "None"
        elif form == 6 and op not in ("any", "all"):
            dim_code = "()" if _chance(draw, 70) else "[]"
            fn.module.features.add("dim_empty_literal")
        elif form <= 8:
            dim_code = _dims_code(draw, tuple(range(ndim)), ndim)
        else:
            value, _ = _runtime_dims(draw, op, ndim, False)
            dim_code = fn.param(f"dim", _const(value))
            fn.module.features.add("dim_runtime")
    else:
        if form < 4 or op == "prod":
            d = draw(_int(-ndim, ndim - 1))
            dim_code, positional = str(d), form == 0
            reduced = {d % ndim}
            fn.module.features.add("dim_negative" if d < 0 else "dim_int")
            if op == "prod" and form >= 7:
                value = draw(_int(-ndim, ndim - 1))
                dim_code, positional = fn.param("dim", _const(value)), False
                reduced = {value % ndim}
                fn.module.features.add("dim_runtime")
        elif form < 7:
            subset = draw(_int(1, 2**ndim - 1))
            dims = tuple(d for d in range(ndim) if subset >> d & 1)
            dim_code = _dims_code(draw, dims, ndim)
            reduced = set(dims)
            fn.module.features.add("dim_tuple")
        elif op in ("any", "all") and form == 9:
            empty = draw(_pick(("()", "[]", "runtime")))
            dim_code = fn.param("dim", _const(())) if empty == "runtime" else empty
            reduced = set()  # any/all over no dim reduce nothing
            fn.module.features.add("dim_empty_any_all")
        else:
            value, _ = _runtime_dims(draw, op, ndim, True)
            dim_code = fn.param("dim", _const(value))
            reduced = (
                {value % ndim} if isinstance(value, int)
                else {d % ndim for d in value} if value
                else (set() if op in ("any", "all") else None)
            )  # fmt: skip
            fn.module.features.add("dim_runtime")
    has_dim = dim_code is not None and dim_code != "None"
    keepdim = op != "count_nonzero" and has_dim and _chance(draw, 30)
    functional = _chance(draw, 25)
    args = []
    if dim_code is not None:
        args.append(dim_code if positional else f"dim={dim_code}")
    if keepdim:
        args.append("keepdim=True")
        fn.module.features.add("keepdim")
    if functional:
        code = f"{t}.{op}({', '.join([var.code] + args)})"
        fn.module.features.add("functional_reduction")
    else:
        code = f"{_atom(var.code)}.{op}({', '.join(args)})"
    fn.module.features.add(f"op_{op}")
    if reduced is None:
        shape: Shape = (1,) * ndim if keepdim else ()
    else:
        shape = tuple(
            1 if d in reduced else s for d, s in enumerate(var.shape) if keepdim or d not in reduced
        )
    exact = var.exact and not (var.kind == "float" and op in ("sum", "mean"))
    return Var(code, shape, _result_kind(op, var.kind), exact=exact)


def _const(value):
    return lambda draw, sizes: value


def _full(fn: _Function, var: Var, op: str | None = None) -> str:
    """A full reduction of var, maybe made a Python number."""
    result = _reduce(fn, var, partial=False, op=op)
    if len(result.shape) != 0:  # keepdim=True over every dim: reduce the size-1 dims away
        result = _reduce(fn, result, partial=False, op="amax" if not result.exact else None)
    code = result.code
    if result.kind in ("int", "bool") and result.exact and _chance(fn.draw, 15):
        fn.module.features.add("to_python_number")
        code = f"int({code})" if _chance(fn.draw, 50) else f"{_atom(code)}.item()"
    return code


def _partial_then_full(fn: _Function, var: Var) -> str:
    """`(m.sum(dim=d) - 1).clamp(min=0).sum()` and the like."""
    inner = _reduce(fn, var, partial=True)
    fn.module.features.add("partial_then_full")
    post = inner
    for _ in range(fn.draw(_int(0, 2))):
        post = _elementwise(fn, post, continuous_only=not post.exact)
    return _full(fn, post)


# ---- statements ----------------------------------------------------------------------------


def _expression(fn: _Function, base: Var) -> str:
    """A full-reduction expression starting from `base`."""
    draw = fn.draw
    shape_mates = [v for v in fn.pool if v.shape == base.shape and v is not base]
    if shape_mates and _chance(draw, 20):  # an op of two broadcast (or dense) tensors
        other = _choose(draw, shape_mates)
        left, right = _elementwise(fn, base), _elementwise(fn, other)
        if left.kind == right.kind == "bool" and _chance(draw, 50):
            combined = Var(f"{_atom(left.code)} & {_atom(right.code)}", base.shape, "bool")
        elif left.kind == "float" or right.kind == "float":
            combined = Var(f"{_atom(left.code)} + {_atom(right.code)}", base.shape, "float")
        else:
            combined = Var(f"{_atom(left.code)} == {_atom(right.code)}", base.shape, "bool")
        fn.module.features.add("two_operands")
        var = combined
    else:
        var = _chain(fn, base, 0, 3)
    var = _maybe_scaled(fn, var)
    if len(var.shape) >= 2 and _chance(draw, 35):
        return _partial_then_full(fn, var)
    if len(var.shape) >= 1 and _chance(draw, 10):
        return _partial_then_full(fn, var)
    return _full(fn, var)


def _result(fn: _Function) -> None:
    """One result statement (or block) appended to the body."""
    draw = fn.draw
    base = _choose(draw, fn.pool)
    form = draw(_int(0, 29))
    name = fn.fresh(draw(_pick(("total", "count", "peak", "hits", "r", "loads", "adds"))))
    t = fn.module.torch
    if form < 10:
        style = draw(_int(0, 19))
        if style == 17:  # the expression split over lines
            fn.emit(f"{name} = (")
            fn.emit(_expression(fn, base), 1)
            fn.emit(")")
            fn.module.features.add("multiline_expression")
        elif style == 18:
            fn.emit("# count what the kernel will touch")
            fn.emit(f"{name} = {_expression(fn, base)}  # per launch")
            fn.module.features.add("comments")
        elif style == 19:
            fn.emit(f"{name} = {_expression(fn, base)}  # noqa: SL101")
            fn.module.features.add("noqa")
        else:
            fn.emit(f"{name} = {_expression(fn, base)}")
    elif form == 20:  # straight into the return statement
        fn.taken.discard(name)
        fn.results.append(_expression(fn, base))
        fn.module.features.add("reduction_in_return")
        return
    elif form == 21:
        fn.emit(f"with {t}.no_grad():")
        fn.emit(f"{name} = {_expression(fn, base)}", 1)
        fn.module.features.add("with_block")
    elif form == 22:
        fn.emit("try:")
        fn.emit(f"{name} = {_expression(fn, base)}", 1)
        fn.emit("except RuntimeError:")
        fn.emit(f"{name} = -1", 1)
        fn.module.features.add("try_except")
    elif form == 23:
        first, second = _expression(fn, base), _expression(fn, _choose(draw, fn.pool))
        fn.emit(f"{name} = {first} if {fn.condition()} else {second}")
        fn.module.features.add("conditional_expression")
    elif form == 24:
        fn.emit(f"if ({name} := {_expression(fn, base)}) is None:")
        fn.emit(f"{name} = 0", 1)
        fn.module.features.add("walrus")
    elif form == 25:  # augmented accumulation
        fn.emit(f"{name} = 0")
        fn.emit(f"for i in range({draw(_int(1, 3))}):")
        fn.emit(f"{name} += {_expression(fn, base)}", 1)
        fn.module.features.add("augmented_assignment")
    elif form == 26:  # an elementwise result kept as a tensor (SL201 territory)
        fn.emit(f"{name} = {_chain(fn, base, 1, 2).code}")
        fn.module.features.add("elementwise_result_returned")
    elif form == 27:  # a copy, then reduced (SL101 on a copy, or SL301)
        copy = fn.fresh("dense")
        fn.emit(f"{copy} = {_atom(base.code)}.{draw(_pick(('contiguous', 'clone')))}()")
        fn.emit(f"{name} = {_expression(fn, Var(copy, base.shape, base.kind))}")
        fn.module.features.add("copy_then_reduce")
    elif form == 28:  # a sum with an explicit dtype
        var = _chain(fn, base, 0, 2)
        dtype = "float64" if var.kind == "float" else draw(_pick(("int64", "int32", "float64")))
        atom = _atom(var.code)
        fn.emit(f"{name} = {atom}.sum(dtype={t}.{dtype})")
        fn.module.features.add("sum_dtype")
    elif form < 13:  # both branches assign
        fn.emit(f"if {fn.condition()}:")
        fn.emit(f"{name} = {_expression(fn, base)}", 1)
        fn.emit("else:")
        fn.emit(f"{name} = {_expression(fn, _choose(draw, fn.pool))}", 1)
        fn.module.features.add("if_else")
    elif form == 13:  # the reduction in the test
        test_var = _chain(fn, base, 1, 2)
        op = draw(_pick(("any", "all")))
        test = _reduce(fn, test_var, partial=False, op=op).code
        fn.emit(f"if {test}:")
        fn.emit(f"{name} = {_expression(fn, base)}", 1)
        fn.emit("else:")
        fn.emit(f"{name} = {draw(_int(-1, 1))}", 1)
        fn.module.features.add("reduction_in_if_test")
    elif form == 14:  # elif
        fn.emit(f"if {fn.condition()}:")
        fn.emit(f"{name} = {_expression(fn, base)}", 1)
        test = _reduce(fn, _chain(fn, base, 1, 1), partial=False, op="any").code
        fn.emit(f"elif {test}:")
        fn.emit(f"{name} = {_expression(fn, base)}", 1)
        fn.emit("else:")
        fn.emit(f"{name} = 0", 1)
        fn.module.features.add("elif")
    elif form < 17:  # accumulate in a loop
        fn.emit(f"{name} = 0")
        fn.emit(f"for i in range({draw(_int(1, 3))}):")
        if _chance(draw, 50):
            var = Var(f"{_atom(base.code)} > i", base.shape, "bool")
            fn.emit(f"{name} = {name} + {_full(fn, var, op='sum')}", 1)
        else:
            fn.emit(f"{name} = {name} + {_expression(fn, base)}", 1)
        fn.module.features.add("for_loop")
    elif form == 17 and len(base.shape) >= 2 or form == 29:  # a partial result returned
        fn.emit(f"{name} = {_reduce(fn, _chain(fn, base, 1, 2), partial=True).code}")
        fn.module.features.add("partial_result_returned")
    else:  # a named mask, its alias, reductions of both
        mask = fn.fresh(draw(_pick(("m", "valid", "nz", "sel"))))
        var = _chain(fn, base, 1, 3)
        fn.emit(f"{mask} = {var.code}")
        named = Var(mask, var.shape, var.kind)
        fn.emit(f"{name} = {_expression(fn, named)}")
        if _chance(draw, 50):
            alias = fn.fresh("alias")
            fn.emit(f"{alias} = {mask}")
            fn.module.features.add("alias")
            named = Var(alias, var.shape, var.kind)
        second = fn.fresh("r")
        fn.emit(f"{second} = {_expression(fn, named)}")
        fn.results.append(second)
        fn.pool.append(Var(mask, var.shape, var.kind))
        fn.module.features.add("named_mask")
    fn.results.append(name)


def _named_masks(fn: _Function) -> None:
    """PR-style masks: `m = (Mask != 0)`, reduced several times; rebinding too."""
    draw = fn.draw
    for source in list(fn.pool):
        if not _chance(draw, 25):
            continue
        mask = fn.fresh(draw(_pick(("m", "nonzero", "active"))))
        var = _chain(fn, source, 1, 2)
        fn.emit(f"{mask} = {var.code}")
        named = Var(mask, var.shape, var.kind)
        fn.module.features.add("named_mask")
        for _ in range(draw(_int(1, 2))):
            result = fn.fresh("r")
            fn.emit(f"{result} = {_expression(fn, named)}")
            fn.results.append(result)
        if fn.module.options.rebind_from_itself and _chance(draw, 30):
            rebound = _elementwise(fn, named)
            fn.emit(f"{mask} = {rebound.code}")
            named = Var(mask, rebound.shape, rebound.kind)
            result = fn.fresh("r")
            fn.emit(f"{result} = {_expression(fn, named)}")
            fn.results.append(result)
            fn.module.features.add("rebind_from_itself")
        elif _chance(draw, 20):  # rebinding to another broadcast value
            other = _choose(draw, fn.pool)
            var = _chain(fn, other, 1, 2)
            fn.emit(f"{mask} = {var.code}")
            named = Var(mask, var.shape, var.kind)
            result = fn.fresh("r")
            fn.emit(f"{result} = {_expression(fn, named)}")
            fn.results.append(result)
            fn.module.features.add("rebind_other")


def _views(fn: _Function) -> None:
    """Views and aliases keep a source broadcast."""
    draw = fn.draw
    for source in list(fn.pool):
        choice = draw(_int(0, 9))
        if choice == 9 and len(source.shape) == 2:
            name = fn.fresh(f"{source.code}_t")
            fn.emit(f"{name} = {source.code}.t()")
            fn.pool.append(Var(name, source.shape[::-1], source.kind, source.definite))
            fn.module.features.add("view_t")
        elif choice == 8:
            name = fn.fresh(f"{source.code}_u")
            fn.emit(f"{name} = {source.code}.unsqueeze(0)")
            fn.pool.append(Var(name, (1, *source.shape), source.kind, source.definite))
            fn.module.features.add("view_unsqueeze")
        elif choice == 7:
            name = fn.fresh("view")
            fn.emit(f"{name} = {source.code}")
            fn.pool.append(Var(name, source.shape, source.kind, source.definite))
            fn.module.features.add("alias")


def _dense_operand(fn: _Function) -> None:
    """A parameter without evidence: a dense tensor the code mixes with broadcast ones."""
    base = _choose(fn.draw, fn.pool)
    dtype = _dtype(fn.draw)
    dense = fn.tensor_param("other", base.shape, dtype, broadcastable=False)
    fn.pool.append(Var(dense, base.shape, KIND[dtype]))
    fn.module.features.add("dense_operand")


def _build_body(fn: _Function, *, plain: bool) -> None:
    draw = fn.draw
    if plain:  # no evidence anywhere: nothing to report
        dtype = _dtype(draw)
        shape = tuple(fn.symbol(s) for s in ("P", "Q")[: draw(_int(1, 2))])
        x = fn.tensor_param("x", shape, dtype, broadcastable=True)
        fn.pool.append(Var(x, shape, KIND[dtype]))
        fn.module.features.add("plain_function")
    else:
        for _ in range(draw(_int(1, 2))):
            fn.pool.extend(_source(fn))
        _views(fn)
        if _chance(draw, 15):
            _dense_operand(fn)
        _named_masks(fn)
    for _ in range(draw(_int(1, 2))):
        _result(fn)


def _helper(module: _Module, caller: _Function) -> None:
    """A module function the caller passes a broadcast source to (facts flow into it)."""
    draw = module.draw
    sources = [v for v in caller.pool if v.definite]
    if not sources:
        return
    source = _choose(draw, sources)
    module.helper_count += 1
    helper = _Function(module, f"_stats{module.helper_count}")
    dtype = {"bool": "bool", "int": "int32", "float": "float32"}[source.kind]
    q = helper.tensor_param("q", source.shape, dtype, broadcastable=True)
    helper.symbols |= {s for s in source.shape if isinstance(s, str)}
    helper.pool.append(Var(q, source.shape, source.kind))
    for _ in range(draw(_int(1, 2))):
        _result(helper)
    extra = []
    for param in helper.params[1:]:  # flags, thresholds, dims: the caller passes its own
        passed = caller.param(param.name, param.value, param.annotation)
        extra.append(f", {param.name}={passed}")
    name = caller.fresh("stats")
    caller.emit(f"{name} = {helper.name}({source.code}{''.join(extra)})")
    caller.results.append(name)
    module.functions.insert(0, helper)
    module.features.add("helper_call_site")


def _hook(module: _Module, index: int) -> _Function:
    """A launch-metadata hook whose docstring documents a broadcastable `args` entry."""
    fn = _Function(module, f"_launch_metadata{index}", hook=True)
    dtype = _dtype(module.draw)
    fn.pool.append(_evidence_param(fn, dtype))
    if _chance(module.draw, 50):
        fn.pool.append(_evidence_param(fn, _dtype(module.draw)))
    _named_masks(fn)
    for _ in range(module.draw(_int(1, 2))):
        _result(fn)
    module.features.add("hook")
    return fn


def _reindent(source: str, unit: str) -> str:
    """Replace each leading group of four spaces with `unit` (docstrings too: consistently)."""
    lines = []
    for line in source.split("\n"):
        stripped = line.lstrip(" ")
        depth, extra = divmod(len(line) - len(stripped), 4)
        lines.append(unit * depth + " " * extra + stripped)
    return "\n".join(lines)


@st.composite
def modules(
    draw: Draw, options: Options = DEFAULT, calls_per_function: int = 2
) -> GeneratedModule:
    module = _Module(draw, options)
    if _chance(draw, 15):
        module.torch = "th"
        module.features.add("torch_alias")
    elif _chance(draw, 15):
        module.from_imports = True
    count = 1 + _chance(draw, 40) + _chance(draw, 10)
    plain_index = draw(_int(0, 9)) if count > 1 else 99  # one plain function in some modules
    for index in range(count):
        if _chance(draw, 12):
            fn = _hook(module, index)
            module.functions.append(fn)
            continue
        stem = draw(_pick(("wrapper", "launch", "count", "reduce_meta")))
        fn = _Function(module, f"{stem}_{index}")
        if _chance(draw, 10):
            fn.decorated = True
            module.features.add("decorator")
        _build_body(fn, plain=index == plain_index)
        module.functions.append(fn)
        if index != plain_index and _chance(draw, 20):
            _helper(module, fn)
    header = []
    if _chance(draw, 30):
        header.append('"""Kernel wrappers (generated by tests/generated/modules.py)."""')
    if module.future_annotations:
        header.append("from __future__ import annotations")
    header.append("import torch" if module.torch == "torch" else "import torch as th")
    if module.imported:
        header.append(f"from torch import {', '.join(sorted(module.imported))}")
        module.features.add("from_torch_import")
    if _chance(draw, 20):
        header.append("import math")
    body = "\n\n\n".join(f.render() for f in module.functions)
    source = "\n".join(header) + "\n\n\n" + body + "\n"
    indent = draw(_pick(("    ", "    ", "    ", "    ", "\t", "  ")))
    if indent != "    ":
        source = _reindent(source, indent)
        module.features.add("indent_" + ("tab" if indent == "\t" else "2"))
    if _chance(draw, 12):
        source = source.replace("\n", "\r\n")
        module.features.add("crlf")
    calls = tuple(fn.call(draw) for fn in module.functions for _ in range(calls_per_function))
    return GeneratedModule(source, calls, frozenset(module.features))
