"""The module-local helpers the narrow-and-rescale fix calls, and the edits that add them.

One small helper per module instead of the narrowing loop at every site (ARCHITECTURE.md).
A helper already present (from an earlier fix) is reused; a different function that
happens to have the name is left alone and the helper gets another name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import libcst as cst

from stridelint.analysis.names import dotted
from stridelint.findings import Edit

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts

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


@dataclass(frozen=True)
class HelperNames:
    narrow: str
    repeats: str
    repeated_sum: str
    math: str
    torch: str
    narrow_exists: bool
    repeats_exists: bool
    repeated_sum_exists: bool
    math_imported: bool
    torch_imported: bool

    @classmethod
    def for_module(cls, facts: ModuleFacts) -> HelperNames:
        math = facts.imports.local_name_for("math")
        torch = facts.imports.local_name_for("torch")
        math_name, torch_name = math or "math", torch or "torch"
        narrow, narrow_exists = _helper_name(facts, "_narrow_broadcast", _NARROW, torch=torch_name)
        repeats, repeats_exists = _helper_name(facts, "_repeats", _REPEATS, math=math_name)
        repeated_sum, repeated_sum_exists = _helper_name(
            facts, "_repeated_sum", _REPEATED_SUM, torch=torch_name
        )
        return cls(
            narrow, repeats, repeated_sum, math_name, torch_name, narrow_exists,
            repeats_exists, repeated_sum_exists, math is not None, torch is not None,
        )  # fmt: skip


def _helper_name(facts: ModuleFacts, base: str, template: str, **names: str) -> tuple[str, bool]:
    """The name to call the helper by, and whether the module already defines it."""
    for candidate in (base, f"_stridelint{base}"):
        existing = facts.top_functions.get(candidate)
        if existing is None:
            return candidate, False
        expected = _render(facts, template, name=candidate, **names)
        if " ".join(facts.module.code_for_node(existing).split()) == " ".join(expected.split()):
            return candidate, True
    raise LookupError(f"{base}: both helper names are taken")


def _render(facts: ModuleFacts, template: str, **names: str) -> str:
    text = template.format(**names).replace("    ", facts.module.default_indent)
    return text.replace("\n", facts.source.newline)


def module_edits(
    facts: ModuleFacts,
    names: HelperNames,
    *,
    needs_math: bool,
    needs_repeats: bool,
    needs_repeated_sum: bool,
) -> Iterator[Edit]:
    """Imports and helper definitions the fix needs and the module lacks, as one insertion."""
    newline = facts.source.newline
    imports = []
    if (needs_math or needs_repeats) and not names.math_imported:
        stdlib_offset = _first_import(facts)
        if stdlib_offset is not None:  # the standard library goes first, as isort has it
            yield facts.source.edit(stdlib_offset, stdlib_offset, f"import math{newline}")
        else:
            imports.append(f"import math{newline}")
    if not names.torch_imported:
        imports.append(f"import torch{newline}")
    helpers = []
    if not names.narrow_exists:
        helpers.append(_render(facts, _NARROW, name=names.narrow, torch=names.torch))
    if needs_repeats and not names.repeats_exists:
        helpers.append(_render(facts, _REPEATS, name=names.repeats, math=names.math))
    if needs_repeated_sum and not names.repeated_sum_exists:
        helpers.append(_render(facts, _REPEATED_SUM, name=names.repeated_sum, torch=names.torch))
    if not imports and not helpers:
        return
    offset, lead = _after_imports(facts)
    if offset == 0:  # nothing to follow: the helpers open the file
        text = "".join(imports) + "".join(f"{h}{newline}{newline}" for h in helpers)
    else:
        text = lead + "".join(imports) + "".join(f"{newline}{newline}{h}" for h in helpers)
    yield facts.source.edit(offset, offset, text)


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
