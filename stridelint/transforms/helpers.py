"""The module-local helpers the narrow-and-rescale fix calls, and the edits that add them.

One small helper per module instead of the narrowing loop at every site (ARCHITECTURE.md).
A helper already present (from an earlier fix) is reused; anything else bound to the name (a
different function, an import, an assignment) is left alone and the helper gets another
name, as does a helper whose name a local shadows where the fix calls it. The modules the
helpers and the fix read (`math`, `torch`) are the module's own unconditional imports when
nothing shadows them, else imported by the fix under a name nothing else uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import libcst as cst

from stridelint.analysis.names import dotted
from stridelint.findings import Edit

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.scopes import NameAllocator, Scope, Scopes

_NARROW = '''\
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

_REPEATS = '''\
def {name}(reps, dim, reduces_all_when_empty=True):
    """How many copies of each narrowed element a reduction over `dim` counts (`dim` an int,
    a sequence of ints, or None). None reduces every dim, and so does an empty sequence,
    except for `any` and `all`, which then reduce none (reduces_all_when_empty=False)."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims and reduces_all_when_empty:
        return {math}.prod(reps)
    return {math}.prod(reps[d] for d in dims) if reps else 1
'''

_REPEATED_SUM = '''\
def {name}(t, repeats, *args, **kwargs):
    """`t.sum(...) * repeats`, with float16/bfloat16 accumulated in float32 and rounded once,
    as the sum over every repeated copy would be."""
    if t.dtype in ({torch}.float16, {torch}.bfloat16) and "dtype" not in kwargs:
        return (t.sum(*args, dtype={torch}.float32, **kwargs) * repeats).to(t.dtype)
    return t.sum(*args, **kwargs) * repeats
'''


# Names the helpers' bodies bind: a module alias they read must be none of these.
HELPER_LOCALS = frozenset(
    {"tensors", "shaped", "expanded", "shape", "reps", "n", "d", "views", "narrowed", "t", "r",
     "dim", "reduces_all_when_empty", "dims", "repeats", "args", "kwargs"}
)  # fmt: skip
_TEMPLATES = {"narrow": _NARROW, "repeats": _REPEATS, "repeated_sum": _REPEATED_SUM}
_BASES = {"narrow": "_narrow_broadcast", "repeats": "_repeats", "repeated_sum": "_repeated_sum"}


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


def choose_names(
    facts: ModuleFacts, scopes: Scopes, allocator: NameAllocator, read_in: dict[str, list[Scope]]
) -> HelperNames:
    """Names for the module aliases and helpers, each unshadowed in the scopes that read it
    (`read_in`: "math", "narrow", "repeats", "repeated_sum"; the helpers read the aliases):
    the module's own binding when it is exactly what the fix needs, else a name nothing
    reads, added by the fix (`import math`, `import math as _math`, `_stridelint_repeats`)."""
    module = scopes.module
    torch = _alias(scopes, allocator, "torch", [module])
    math = _alias(scopes, allocator, "math", [module, *read_in.get("math", [])])
    aliases = {"torch": torch.name, "math": math.name}
    chosen = {}
    for kind, base in _BASES.items():
        template = _TEMPLATES[kind]
        rendered = {key: value for key, value in aliases.items() if "{" + key + "}" in template}

        def classify(candidate: str, template=template, rendered=rendered) -> str:
            return _helper_state(facts, scopes, allocator, candidate, template, rendered)

        candidates = _numbered(base, f"_stridelint{base}")
        name, exists = allocator.module_level(
            f"helper {kind} {sorted(rendered.items())}", candidates, read_in.get(kind, [module]),
            classify,
        )
        chosen[kind] = Name(name, exists)
    return HelperNames(math, torch, chosen["narrow"], chosen["repeats"], chosen["repeated_sum"])


def own_helpers(facts: ModuleFacts, scopes: Scopes) -> frozenset[str]:
    """Module functions that are this fix's helpers (added by earlier fixes, under any of
    the names `choose_names` gives them): they read their arguments and change nothing."""
    aliases = {
        module: {module} | {
            name for name, bindings in scopes.module.bindings.items()
            if any(b.kind == "import" and b.module == module for b in bindings)
        }
        for module in ("math", "torch")
    }  # fmt: skip
    found = set()
    for kind, base in _BASES.items():
        template = _TEMPLATES[kind]
        module = "torch" if "{torch}" in template else "math"
        for name in _numbered_until(base, f"_stridelint{base}", scopes):
            for alias in aliases[module]:
                if _helper_state(facts, scopes, None, name, template, {module: alias}) == "ours":
                    found.add(name)
    return frozenset(found)


def _numbered_until(first: str, second: str, scopes: Scopes) -> Iterator[str]:
    """The helper names the module binds, in `_numbered` order, up to the first it lacks."""
    for name in _numbered(first, second):
        if not scopes.module_bindings(name) and name != first:
            return
        yield name


def narrowing_helper(facts: ModuleFacts, scopes: Scopes, name: str, torch: str) -> bool:
    """Whether the module binds `name` to exactly the narrowing helper (rendered with `torch`)."""
    return _helper_state(facts, scopes, None, name, _NARROW, {"torch": torch}) == "ours"


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


def _helper_state(
    facts: ModuleFacts,
    scopes: Scopes,
    allocator: NameAllocator | None,
    candidate: str,
    template: str,
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
    existing = bindings[0].node
    expected = _render(facts, template, name=candidate, **aliases)
    if " ".join(facts.module.code_for_node(existing).split()) == " ".join(expected.split()):
        return "ours"
    return "taken"


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
) -> Iterator[Edit]:
    """Imports and helper definitions the fix needs and the module lacks, as one insertion
    (`needs_math`: the fix's own code reads the math alias)."""
    newline = facts.source.newline
    helpers = []
    if needs_narrow and not names.narrow.exists:
        helpers.append(_render(facts, _NARROW, name=names.narrow.name, torch=names.torch.name))
    if needs_repeats and not names.repeats.exists:
        helpers.append(_render(facts, _REPEATS, name=names.repeats.name, math=names.math.name))
    if needs_repeated_sum and not names.repeated_sum.exists:
        helpers.append(
            _render(facts, _REPEATED_SUM, name=names.repeated_sum.name, torch=names.torch.name)
        )
    imports = []
    if (needs_math or needs_repeats and not names.repeats.exists) and not names.math.exists:
        line = _import_line("math", names.math.name, newline)
        stdlib_offset = _first_import(facts)
        if stdlib_offset is not None:  # the standard library goes first, as isort has it
            yield facts.source.edit(stdlib_offset, stdlib_offset, line)
        else:
            imports.append(line)
    uses_torch = (needs_narrow and not names.narrow.exists) or (
        needs_repeated_sum and not names.repeated_sum.exists
    )
    if uses_torch and not names.torch.exists:
        imports.append(_import_line("torch", names.torch.name, newline))
    if not imports and not helpers:
        return
    offset, lead = _after_imports(facts)
    if offset == 0:  # nothing to follow: the helpers open the file
        text = "".join(imports) + "".join(f"{h}{newline}{newline}" for h in helpers)
    else:
        text = lead + "".join(imports) + "".join(f"{newline}{newline}{h}" for h in helpers)
    yield facts.source.edit(offset, offset, text)


def _import_line(module: str, name: str, newline: str) -> str:
    return f"import {module}{newline}" if name == module else f"import {module} as {name}{newline}"


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
