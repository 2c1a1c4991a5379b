"""The helpers the narrow-and-rescale fix calls, and the edits that add or import them.

One small helper per module instead of the narrowing loop at every site (ARCHITECTURE.md),
or, with the `helper-module` setting, one per package, imported (`helper_module_source` is
that module's text). The fix needs none where it writes the narrowing out.
A helper already present (from an earlier fix) is reused; anything else bound to the name (a
different function, an import, an assignment) is left alone and the helper gets another
name, as does a helper whose name a local shadows where the fix calls it. The modules the
helpers and the fix read (`math`, `torch`) are the module's own unconditional imports when
nothing shadows them, else imported by the fix under a name nothing else uses.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import libcst as cst

from stridelint.analysis.names import dotted
from stridelint.findings import Edit

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.scopes import NameAllocator, Scope, Scopes

# Each line stays within 79 characters, the shortest line length in common use.
_NARROW = '''\
def {name}(*args):
    """The tensor args as views cut to one element on each dim they all
    repeat (stride 0, size > 1), and each dim's repeat count."""
    shaped = [isinstance(a, {torch}.Tensor) and a.dim() > 0 for a in args]
    views = {torch}.broadcast_tensors(*(a for a, s in zip(args, shaped) if s))
    dims = zip(views[0].shape, *(v.stride() for v in views)) if views else ()
    reps = tuple(n if n > 1 and not any(st) else 1 for n, *st in dims)
    index = tuple(slice(1) if r > 1 else slice(None) for r in reps)
    views = iter(views)
    out = [next(views)[index] if s else a for a, s in zip(args, shaped)]
    return (*out, reps)
'''

# The narrowing helper as stridelint 0.x pasted it: modules fixed then keep using it.
_LEGACY_NARROW = '''\
def {name}(*tensors):
    """Narrow to size 1 every dim along which all tensor operands repeat one value (stride 0,
    size > 1), without copying; return the narrowed operands and each dim's repeat count."""
    shaped = [t for t in tensors if isinstance(t, {torch}.Tensor) and t.dim() > 0]
    expanded = {torch}.broadcast_tensors(*shaped)
    shape = expanded[0].shape if expanded else ()
    reps = tuple(
        n if n > 1 and all(t.stride(d) == 0 for t in expanded) else 1
        for d, n in enumerate(shape)
    )
    views = iter(expanded)
    narrowed = []
    for t in tensors:
        if isinstance(t, {torch}.Tensor) and t.dim() > 0:
            t = next(views)
            for d, r in enumerate(reps):
                if r > 1:
                    t = t.narrow(d, 0, 1)
        narrowed.append(t)
    return (*narrowed, reps)
'''

_LEGACY_REPEATS = '''\
def {name}(reps, dim, reduces_all_when_empty=True):
    """How many copies of each narrowed element a reduction over `dim` counts (`dim` an int,
    a sequence of ints, or None). None reduces every dim, and so does an empty sequence,
    except for `any` and `all`, which then reduce none (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return {math}.prod(reps)
    return {math}.prod(reps[d] for d in dims) if reps else 1
'''

_LEGACY_REPEATED_SUM = '''\
def {name}(t, repeats, *args, **kwargs):
    """`t.sum(...) * repeats`, with float16/bfloat16 accumulated in float32 and rounded once,
    as the sum over every repeated copy would be."""
    if t.dtype in ({torch}.float16, {torch}.bfloat16) and "dtype" not in kwargs:
        return (t.sum(*args, dtype={torch}.float32, **kwargs) * repeats).to(t.dtype)
    return t.sum(*args, **kwargs) * repeats
'''

_REPEATS = '''\
def {name}(reps, dim, reduces_all_when_empty=True):
    """The repeat count of a reduction over `dim` (an int, ints, or None):
    None reduces every dim, as does an empty sequence except for `any` and
    `all` (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return {math}.prod(reps)
    return {math}.prod(reps[d] for d in dims) if reps else 1
'''

_REPEATED_SUM = '''\
def {name}(t, repeats, *args, **kwargs):
    """`t.sum(...) * repeats`, float16/bfloat16 summed in float32 and
    rounded once, as the sum over every repeated copy would be."""
    if t.dtype in ({torch}.float16, {torch}.bfloat16) and "dtype" not in kwargs:
        total = t.sum(*args, dtype={torch}.float32, **kwargs)
        return (total * repeats).to(t.dtype)
    return t.sum(*args, **kwargs) * repeats
'''

_COUNT_TRUE = '''\
def {name}(t, dim=None, rows=False):
    """`t.sum()` of a bool tensor (0-d int64, on t's device); with rows=True,
    how many rows along `dim` hold a True: `t.sum(dim).count_nonzero()`.
    Off the CPU, sum and count_nonzero first copy t to int64 (8 bytes an
    element), so count sixteenths of it in int32 there."""
    if rows and (dim is None or isinstance(dim, (tuple, list)) and not dim):
        t = t.any()
    elif rows and not (type(dim) is int and t.dim() and t.shape[dim] == 1):
        t = t.any(dim=dim)
    if t.device.type == "cpu" or t.dim() == 0:
        return {torch}.count_nonzero(t)
    d = max(range(t.dim()), key=t.size)
    total = t.new_zeros((), dtype={torch}.int64)
    for part in t.split(max(1, t.size(d) // 16), d):
        total += part.sum(dtype={torch}.int32 if part.numel() < 2**31 else None)
    return total
'''


# Names the helpers' bodies bind: a module alias they read must be none of these.
HELPER_LOCALS = frozenset(
    {"args", "shaped", "a", "s", "views", "v", "dims", "n", "st", "reps", "r", "index", "out",
     "dim", "reduces_all_when_empty", "d", "t", "repeats", "kwargs", "total",
     "rows", "part", "tensors", "expanded", "shape", "narrowed"}  # the last: legacy
)  # fmt: skip
_TEMPLATES = {"narrow": _NARROW, "repeats": _REPEATS, "repeated_sum": _REPEATED_SUM,
              "count_true": _COUNT_TRUE}  # fmt: skip
_LEGACY = {"narrow": _LEGACY_NARROW, "repeats": _LEGACY_REPEATS,
           "repeated_sum": _LEGACY_REPEATED_SUM, "count_true": _COUNT_TRUE}  # fmt: skip
_BASES = {"narrow": "_narrow_broadcast", "repeats": "_repeats", "repeated_sum": "_repeated_sum",
          "count_true": "_count_true"}  # fmt: skip
# The names a helper module (`helper-module`) defines them by.
PUBLIC = {"narrow": "narrow_broadcast", "repeats": "repeats", "repeated_sum": "repeated_sum",
          "count_true": "count_true"}  # fmt: skip


def helper_module_source() -> str:
    """The text of a module holding the helpers, for the `helper-module` setting."""
    helpers = [
        template.format(name=PUBLIC[kind], torch="torch", math="math")
        for kind, template in _TEMPLATES.items()
    ]
    header = (
        '"""Helpers for stridelint\'s narrow-and-rescale fixes (`helper-module`):\n'
        "reduce a broadcast tensor's one stored copy, then scale by its repeats.\n"
        'Written by `stridelint helpers`; regenerate rather than edit."""\n\n'
        "import math\n\nimport torch\n"
    )
    return header + "".join(f"\n\n{h}" for h in helpers)


@dataclass(frozen=True)
class Name:
    """A module-level name a fix reads, and whether the module already binds it to that."""

    name: str
    exists: bool


@dataclass(frozen=True)
class HelperNames:
    math: Name
    torch: Name
    narrow: Name
    repeats: Name
    repeated_sum: Name
    count_true: Name
    helper_module: str | None = None  # imported from there, not pasted


def choose_names(
    facts: ModuleFacts,
    scopes: Scopes,
    allocator: NameAllocator,
    read_in: dict[str, list[Scope]],
    helper_module: str | None = None,
) -> HelperNames:
    """Names for the module aliases and helpers, each unshadowed in the scopes that read it
    (`read_in`: "math", "narrow", "repeats", "repeated_sum", "count_true"; the helpers read
    the aliases):
    the module's own binding when it is exactly what the fix needs, else a name nothing
    reads, added by the fix (`import math`, `import math as _math`, `_stridelint_repeats`).
    With a `helper_module`, the helpers are that module's, imported under such names."""
    module = scopes.module
    torch = _alias(scopes, allocator, "torch", [module])
    math = _alias(scopes, allocator, "math", [module, *read_in.get("math", [])])
    aliases = {"torch": torch.name, "math": math.name}
    chosen = {}
    for kind, base in _BASES.items():
        if helper_module is not None:
            base = PUBLIC[kind]
            imported = f"{helper_module}.{base}"

            def classify(candidate: str, imported=imported) -> str:
                return _import_state(scopes, allocator, candidate, imported)

            purpose = f"helper {kind} from {helper_module}"
        else:
            template = _TEMPLATES[kind]
            rendered = {key: value for key, value in aliases.items() if "{" + key + "}" in template}

            def classify(candidate: str, kind=kind, rendered=rendered) -> str:
                return _helper_state(facts, scopes, allocator, candidate, kind, rendered)

            purpose = f"helper {kind} {sorted(rendered.items())}"
        candidates = _numbered(base, f"_stridelint{base}" if base[0] == "_" else f"_{base}")
        name, exists = allocator.module_level(
            purpose, candidates, read_in.get(kind, [module]), classify
        )
        chosen[kind] = Name(name, exists)
    return HelperNames(
        math, torch, chosen["narrow"], chosen["repeats"], chosen["repeated_sum"],
        chosen["count_true"], helper_module,
    )


def own_helpers(
    facts: ModuleFacts, scopes: Scopes, helper_module: str | None = None
) -> frozenset[str]:
    """Module functions that are this fix's helpers (added by earlier fixes, under any of
    the names `choose_names` gives them, or imported from `helper_module`): they read their
    arguments and change nothing."""
    aliases = {
        module: {module} | {
            name for name, bindings in scopes.module.bindings.items()
            if any(b.kind == "import" and b.module == module for b in bindings)
        }
        for module in ("math", "torch")
    }  # fmt: skip
    found = set()
    for kind, base in _BASES.items():
        module = "torch" if "{torch}" in _TEMPLATES[kind] else "math"
        for name in _numbered_until(base, f"_stridelint{base}", scopes):
            for alias in aliases[module]:
                if _helper_state(facts, scopes, None, name, kind, {module: alias}) == "ours":
                    found.add(name)
    if helper_module is not None:
        imported = {f"{helper_module}.{public}" for public in PUBLIC.values()}
        found |= {
            name for name, bindings in scopes.module.bindings.items()
            if bindings and all(b.kind == "import" and b.module in imported for b in bindings)
        }  # fmt: skip
    return frozenset(found)


def _numbered_until(first: str, second: str, scopes: Scopes) -> Iterator[str]:
    """The helper names the module binds, in `_numbered` order, up to the first it lacks."""
    for name in _numbered(first, second):
        if not scopes.module_bindings(name) and name != first:
            return
        yield name


def narrowing_helper(
    facts: ModuleFacts, scopes: Scopes, name: str, torch: str, helper_module: str | None = None
) -> bool:
    """Whether the module binds `name` to exactly the narrowing helper (rendered with `torch`,
    or imported from `helper_module`)."""
    if helper_module is not None:
        imported = f"{helper_module}.{PUBLIC['narrow']}"
        return _import_state(scopes, None, name, imported) == "ours"
    return _helper_state(facts, scopes, None, name, "narrow", {"torch": torch}) == "ours"


def _alias(scopes: Scopes, allocator: NameAllocator, module: str, read_in: list[Scope]) -> Name:
    def classify(candidate: str) -> str:
        if candidate in HELPER_LOCALS:
            return "taken"
        if not candidate.startswith("_") and scopes.module.star_import:
            return "taken"  # `from x import *` may bind it, before or after the fix's import
        bindings = scopes.module_bindings(candidate)
        if not bindings:
            return "free" if allocator.unread(candidate) else "taken"
        if all(b.kind == "import" and b.module == module for b in bindings):
            # the same module, bound for sure (at top level) or only conditionally (e.g.
            # under `if TYPE_CHECKING:`), where an unconditional import of it changes nothing
            return "ours" if any(scopes.is_top_level(b.statement) for b in bindings) else "free"
        return "taken"

    candidates = _numbered(module, f"_{module}")
    name, exists = allocator.module_level(f"import {module}", candidates, read_in, classify)
    return Name(name, exists)


def _numbered(first: str, second: str) -> Iterator[str]:
    """`first`, `second`, then `second_1`, `second_2`, ..."""
    yield first
    yield second
    counter = 1
    while True:
        yield f"{second}_{counter}"
        counter += 1


def _import_state(
    scopes: Scopes, allocator: NameAllocator | None, candidate: str, imported: str
) -> str:
    """"ours" when the module imports exactly `imported` (module.name) as `candidate` at its
    top level, "free" when nothing binds or reads it, else "taken"."""
    if not candidate.startswith("_") and scopes.module.star_import:
        return "taken"
    bindings = scopes.module_bindings(candidate)
    if not bindings:
        if allocator is None:
            return "taken"
        return "free" if allocator.unread(candidate) else "taken"
    if all(b.kind == "import" and b.module == imported for b in bindings):
        return "ours" if any(scopes.is_top_level(b.statement) for b in bindings) else "free"
    return "taken"


def _helper_state(
    facts: ModuleFacts,
    scopes: Scopes,
    allocator: NameAllocator | None,
    candidate: str,
    kind: str,
    aliases: dict[str, str],
) -> str:
    bindings = scopes.module_bindings(candidate)
    if not bindings:
        if allocator is None:
            return "taken"
        return "free" if allocator.unread(candidate) else "taken"
    if len(bindings) != 1 or bindings[0].kind != "def":
        return "taken"
    if not scopes.is_top_level(bindings[0].statement):
        return "taken"
    existing = _definition_words(facts, bindings[0].node)
    for template in (_TEMPLATES[kind], _LEGACY[kind]):
        expected = _render(facts, template, name=candidate, **aliases)
        if existing == " ".join(expected.split()):
            return "ours"
    return "taken"


# A helper's definition as words, by module: generating a definition's code costs more than
# the rest of a fix, and every fix of a pass asks about the same few definitions.
_DEFINITIONS: weakref.WeakKeyDictionary[ModuleFacts, dict[cst.CSTNode, str]] = (
    weakref.WeakKeyDictionary()
)


def _definition_words(facts: ModuleFacts, definition: cst.CSTNode) -> str:
    known = _DEFINITIONS.setdefault(facts, {})
    if definition not in known:
        known[definition] = " ".join(facts.module.code_for_node(definition).split())
    return known[definition]


def _render(facts: ModuleFacts, template: str, **names: str) -> str:
    text = template.format(**names).replace("    ", facts.module.default_indent)
    return text.replace("\n", facts.source.newline)


def module_edits(
    facts: ModuleFacts,
    names: HelperNames,
    *,
    needs_math: bool,
    needs_narrow: bool,
    needs_repeats: bool,
    needs_repeated_sum: bool,
    needs_count_true: bool = False,
    line_length: int = 88,
) -> Iterator[Edit]:
    """Imports and helper definitions the fix needs and the module lacks, as one insertion
    (`needs_math`: the fix's own code reads the math alias)."""
    newline = facts.source.newline
    wanted = {"narrow": needs_narrow, "repeats": needs_repeats, "repeated_sum": needs_repeated_sum,
              "count_true": needs_count_true}  # fmt: skip
    missing = [kind for kind, needed in wanted.items() if needed and not getattr(names, kind).exists]
    pasted = [] if names.helper_module is not None else missing
    helpers = [
        _render(facts, _TEMPLATES[kind], name=getattr(names, kind).name,
                torch=names.torch.name, math=names.math.name)
        for kind in pasted
    ]  # fmt: skip
    imports = []
    if (needs_math or "repeats" in pasted) and not names.math.exists:
        line = _import_line("math", names.math.name, newline)
        stdlib_offset = _first_import(facts)
        if stdlib_offset is not None:  # the standard library goes first, as isort has it
            yield facts.source.edit(stdlib_offset, stdlib_offset, line, shared=True)
        else:
            imports.append(line)
    uses_torch = any(kind in pasted for kind in ("narrow", "repeated_sum", "count_true"))
    if uses_torch and not names.torch.exists:
        imports.append(_import_line("torch", names.torch.name, newline))
    if names.helper_module is not None and missing:
        imported = [(PUBLIC[kind], getattr(names, kind).name) for kind in missing]
        imports.append(_from_import(names.helper_module, imported, facts, line_length))
    if not imports and not helpers:
        return
    offset, lead = _after_imports(facts)
    # Two blank lines between top-level definitions, and after the imports before them.
    defined = "".join(f"{h}{newline}{newline}" for h in helpers)
    if offset == 0:  # nothing to follow: the imports and helpers open the file
        first = facts.module.body[0] if facts.module.body else None
        blank_lines = 2 if helpers or isinstance(first, (cst.FunctionDef, cst.ClassDef)) else 1
        spacer = newline * blank_lines if imports and first is not None else ""
        text = "".join(imports) + spacer + defined
    else:
        text = lead + "".join(imports) + "".join(f"{newline}{newline}{h}" for h in helpers)
    yield facts.source.edit(offset, offset, text, shared=True)


def _import_line(module: str, name: str, newline: str) -> str:
    return f"import {module}{newline}" if name == module else f"import {module} as {name}{newline}"


def _from_import(
    module: str, names: list[tuple[str, str]], facts: ModuleFacts, line_length: int
) -> str:
    """`from module import a, b as c`, parenthesized one a line when it is too long."""
    newline, indent = facts.source.newline, facts.module.default_indent
    parts = [public if public == local else f"{public} as {local}" for public, local in names]
    line = f"from {module} import {', '.join(parts)}"
    if len(line) <= line_length:
        return line + newline
    body = "".join(f"{indent}{part},{newline}" for part in parts)
    return f"from {module} import ({newline}{body}){newline}"


def _first_import(facts: ModuleFacts) -> int | None:
    """Offset of the first top-level import after any `from __future__` ones."""
    for statement in facts.module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return None
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        first = statement.body[0]
        if isinstance(first, cst.ImportFrom) and dotted(first.module) == "__future__":
            continue
        if isinstance(first, (cst.Import, cst.ImportFrom)):
            return facts.span(statement)[0]
    return None


def _after_imports(facts: ModuleFacts) -> tuple[int, str]:
    """Where new top-level code goes: after the last leading import (or docstring)."""
    anchor = None
    for index, statement in enumerate(facts.module.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            break
        if isinstance(statement, cst.SimpleStatementLine):
            first = statement.body[0]
            is_docstring = index == 0 and isinstance(first, cst.Expr) and isinstance(
                first.value, (cst.SimpleString, cst.ConcatenatedString)
            )
            if isinstance(first, (cst.Import, cst.ImportFrom)) or is_docstring:
                anchor = statement
    if anchor is None:
        return 0, ""
    _, end = facts.span(anchor)
    source = facts.source
    line = source.line_of(end)
    if line < len(source.line_starts):
        return source.line_starts[line], ""
    return len(source.text), source.newline  # the file ends without a newline
