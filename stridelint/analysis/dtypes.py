"""The dtype the code shows a tensor has, and the dtype a cast converts to.

A cast to the dtype a tensor already has returns the tensor itself, with its strides
(semantics §1.1), so it materializes nothing; and whether values are integers decides
whether a rescaled sum is exact. Both are read from the code: a cast's argument, a
comparison, a name's assignment; never guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.bindings import (
    every_assignment,
    every_assignment_or_the_parameter,
    reaching_assignment,
    reads_the_parameter,
    statement_of,
)
from stridelint.analysis.literals import is_none
from stridelint.analysis.names import dotted
from stridelint.analysis.provenance import expand_parts
from stridelint.analysis.scalars import is_python_number
from stridelint.analysis.tree import descendants

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts

# `.float()` and friends, and the dtype each one casts to.
_CAST_DTYPES = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
    "int": "int32", "long": "int64", "short": "int16", "bool": "bool", "byte": "uint8",
    "char": "int8",
}  # fmt: skip
_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
                  "int": "int32", "short": "int16"}  # fmt: skip
_INTEGER_DTYPE_SPELLINGS = torch_ops.INTEGER_DTYPE_NAMES | {"bool"}
# Bytes per element of each canonical dtype `cast_dtype` names: how large a materialization is.
_ITEMSIZES = {
    "bool": 1, "uint8": 1, "int8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "int16": 2,
    "float16": 2, "bfloat16": 2, "int32": 4, "float32": 4, "int64": 8, "float64": 8,
    "complex64": 8, "complex128": 16,
}  # fmt: skip
_MAX_DEPTH = 16  # arithmetic chains (`1.0 / (base ** (arange(...) / dim))`) nest deep
_FLOATING = frozenset({"float16", "bfloat16", "float32", "float64"})
# Arithmetic whose result keeps a floating tensor's dtype when the other operand is a Python
# number or a tensor of that same dtype (type promotion: a scalar never widens a tensor of its
# own category; checked against torch in tests/analysis/test_dtypes.py).
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
               cst.Power)  # fmt: skip
# Bitwise ops, logical on bool tensors: bool & bool is bool (an int operand would promote).
_LOGICAL = (cst.BitAnd, cst.BitOr, cst.BitXor)
# Methods that allocate with the receiver's dtype unless a `dtype=` says otherwise.
_NEW_METHODS = frozenset({"new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"})


def names_integer_dtype(node: cst.BaseExpression) -> bool:
    """Whether node is spelled as a bool or integer dtype (`torch.int64`, `torch.bool`,
    `long`), by its last dotted part: what `.to(...)` or `dtype=` casts to."""
    return (dotted(node) or "").split(".")[-1] in _INTEGER_DTYPE_SPELLINGS


def itemsize(dtype: str | None) -> int | None:
    """Bytes per element of a dtype as `dtype_of` names it; None when the code does not say
    (`x.dtype`) or for no dtype."""
    return _ITEMSIZES.get(dtype) if dtype is not None else None


def cast_dtype(facts: ModuleFacts, node: cst.BaseExpression) -> str | None:
    """The dtype a cast converts to: canonical for `torch.float16`/`.half()`, else its code
    (`x.dtype`); None when node is not a cast or its dtype is not in the code."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return None
    method = node.func.attr.value
    if method in _CAST_DTYPES and not node.args:
        return _CAST_DTYPES[method]
    if method not in ("to", "type"):
        return None
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value != "dtype":
            continue
        named = _named_dtype(facts, arg.value)
        if named is not None:
            return named
    return None


def reads_target_at_runtime(
    facts: ModuleFacts, cast: cst.Call, statement: cst.CSTNode | None
) -> bool:
    """Whether the dtype `cast` converts to is one the code reads at runtime (`x.dtype`,
    `.type_as(x)`, a `dtype` argument), not one it names (`torch.float32`, `.float()`, a name
    bound to `torch.bfloat16`)."""
    target = cast_target(facts, cast, statement)
    if isinstance(cast.func, cst.Attribute) and cast.func.attr.value == "type_as":
        return target not in _ITEMSIZES
    if target is None or target in _ITEMSIZES:
        return False
    dtype_arg = next((a.value for a in cast.args if _named_dtype(facts, a.value) == target), None)
    if isinstance(dtype_arg, cst.Name):  # `dtype = torch.float32` earlier: a named dtype
        found = reaching_assignment(facts, dtype_arg, statement)
        if found is not None and _named_dtype(facts, found[0].value) in _ITEMSIZES:
            return False
    return True


def _named_dtype(facts: ModuleFacts, node: cst.BaseExpression) -> str | None:
    """The dtype node names: canonical for `torch.float16`, else its code when it reads as a
    dtype (`x.dtype`, `compute_dtype`); None for anything else (`device`)."""
    qualified = facts.imports.resolve(node) or ""
    if qualified.startswith("torch.") and qualified[6:] in torch_ops.DTYPE_NAMES:
        return _DTYPE_ALIASES.get(qualified[6:], qualified[6:])
    code = dotted(node) or facts.text_of(node)  # a dotted name needs no position
    return code if code.split(".")[-1].endswith("dtype") else None


def cast_target(
    facts: ModuleFacts, cast: cst.Call, statement: cst.CSTNode | None
) -> str | None:
    """The dtype `cast` converts to, in `cast_dtype`'s terms: its argument's, or for
    `x.type_as(other)` the dtype the code shows `other` has at `statement`."""
    return _cast_target(facts, cast, statement, 0)


def _cast_target(
    facts: ModuleFacts, cast: cst.Call, statement: cst.CSTNode | None, depth: int
) -> str | None:
    func = cast.func
    if isinstance(func, cst.Attribute) and func.attr.value == "type_as":
        positional = [a.value for a in cast.args if a.keyword is None and not a.star]
        if len(positional) != 1 or len(cast.args) != 1:
            return None
        return _dtype_of(facts, positional[0], statement, depth + 1)
    return cast_dtype(facts, cast)


def dtype_of(
    facts: ModuleFacts, node: cst.BaseExpression, statement: cst.CSTNode | None
) -> str | None:
    """The dtype the code shows node has, in `cast_dtype`'s terms: through views and
    expands, to a cast or a comparison; through a name, to the assignment it reads (an
    in-place op keeps a dtype)."""
    return _dtype_of(facts, node, statement, 0)


def _dtype_of(
    facts: ModuleFacts, node: cst.BaseExpression, statement: cst.CSTNode | None, depth: int
) -> str | None:
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, cst.Comparison):
        return "bool"
    if isinstance(node, cst.Name):
        found = reaching_assignment(facts, node, statement)
        if found is not None:
            return _dtype_of(facts, found[0].value, found[1], depth + 1)
        branches = every_assignment(facts, node, statement)
        if branches is not None:  # `if c: x = a.float() else: x = b.float()`: one dtype
            tensors = [(a, at) for a, at in branches if not is_none(a.value)]
            dtypes = {_dtype_of(facts, a.value, at, depth + 1) for a, at in tensors}
            # where the load reads `None` (`m = None`, then `if c: m = ...`), it is no tensor
            return dtypes.pop() if len(dtypes) == 1 else None
        # a parameter: its callers' broadcasts' dtype, its docstring's, annotation's or use's
        found_dtype = facts.parameter_dtype(node) or facts.declared_or_used_dtype(node, statement)
        if found_dtype is not None:
            return found_dtype
        # `if c: mask = torch.cat([mask, m])`: the parameter or what a branch binds, one dtype
        paths = every_assignment_or_the_parameter(facts, node, statement)
        if not paths or None not in paths:
            return None
        found = {
            _parameter_dtype(facts, node) if path is None
            else _dtype_of(facts, path[0].value, path[1], depth + 1)
            for path in paths
        }  # fmt: skip
        return found.pop() if len(found) == 1 else None
    if isinstance(node, cst.Subscript):
        return _dtype_of(facts, node.value, statement, depth + 1)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.BitInvert)):
        return _dtype_of(facts, node.expression, statement, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
        return _arithmetic_dtype(facts, node, statement, depth)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _LOGICAL):
        sides = (node.left, node.right)  # `(a > 0) & (b < 1)`: bool when both sides are
        both = all(_dtype_of(facts, side, statement, depth + 1) == "bool" for side in sides)
        return "bool" if both else None
    if isinstance(node, cst.Call):
        cast = _cast_target(facts, node, statement, depth)
        if cast is not None:
            return cast
        allocated = _allocation_dtype(facts, node, statement, depth)
        if allocated is not None:
            return allocated
        if _moves_device_only(node):  # `x.to(y.device)`, `x.cuda()`: x's dtype
            return _dtype_of(facts, node.func.value, statement, depth + 1)  # type: ignore[attr-defined]
        joined = _joined_dtype(facts, node, statement, depth)
        if joined is not None:
            return joined
        operand = _same_dtype_operand(facts, node)
        if operand is not None:  # `torch.exp(x)`, `x.abs()`, `F.pad(x, p)`: x's dtype
            return _dtype_of(facts, operand, statement, depth + 1)
        parts = expand_parts(facts, node)
        if parts is not None:
            return _dtype_of(facts, parts[0], statement, depth + 1)
        pattern_input = _pattern_input(facts, node)
        if pattern_input is not None:  # `einops.repeat(x, "h -> h p")`: x's elements, moved
            return _dtype_of(facts, pattern_input, statement, depth + 1)
        if isinstance(node.func, cst.Attribute) and facts.imports.resolve(node.func) is None:
            method = node.func.attr.value
            if method in torch_ops.BOOL_RESULT_METHODS | torch_ops.BOOL_REDUCTIONS:
                return "bool"
            if method in torch_ops.VIEW_METHODS:
                return _dtype_of(facts, node.func.value, statement, depth + 1)
    return None


def _parameter_dtype(facts: ModuleFacts, name: cst.Name) -> str | None:
    """The dtype the parameter `name` is declared or used with (a path that reads it)."""
    func = facts.function_around(name)
    if not isinstance(func, cst.FunctionDef):
        return None
    return "bool" if name.value in facts.bool_parameters(func) else None


def _pattern_input(facts: ModuleFacts, call: cst.Call) -> cst.BaseExpression | None:
    """The tensor an einops `repeat`/`rearrange` call moves (its first argument), else None."""
    if facts.imports.resolve(call.func) not in torch_ops.PATTERN_VIEW_FUNCTIONS:
        return None
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    return positional[0] if positional else None


def _same_dtype_operand(facts: ModuleFacts, call: cst.Call) -> cst.BaseExpression | None:
    """The one tensor operand of an elementwise op whose result keeps its dtype (the table's
    `SAME` ops of arity 1: `torch.exp(x)`, `x.abs()`), else None."""
    qualified = facts.imports.resolve(call.func)
    if qualified in torch_ops.FIRST_INPUT_DTYPE_FUNCTIONS:
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        return positional[0] if positional and not call.args[0].star else None
    if qualified is not None:
        op = torch_ops.FUNCTIONS.get(qualified)
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        operand = positional[0] if len(positional) == 1 else None
    elif isinstance(call.func, cst.Attribute) and not call.args:
        op = torch_ops.METHODS.get(call.func.attr.value)
        operand = call.func.value
    else:
        return None
    if op is None or op.kind != torch_ops.ELEMENTWISE or op.result_dtype != torch_ops.SAME:
        return None
    return operand if op.arity == 1 else None


def _joined_dtype(
    facts: ModuleFacts, call: cst.Call, statement: cst.CSTNode | None, depth: int
) -> str | None:
    """`torch.cat([mask, c_mask], dim=1)`: the dtype every listed part is shown to have (parts
    of one dtype join in it; mixed ones promote), else None."""
    if facts.imports.resolve(call.func) not in torch_ops.JOIN_FUNCTIONS or not call.args:
        return None
    first = call.args[0]
    if first.keyword is not None or first.star or not isinstance(first.value, (cst.List, cst.Tuple)):
        return None
    parts = first.value.elements
    if not parts or any(isinstance(p, cst.StarredElement) for p in parts):
        return None
    found = {_dtype_of(facts, p.value, statement, depth + 1) for p in parts}
    return found.pop() if len(found) == 1 else None


def _arithmetic_dtype(
    facts: ModuleFacts, node: cst.BinaryOperation, statement: cst.CSTNode | None, depth: int
) -> str | None:
    """A floating tensor's dtype, kept by arithmetic with a Python number or with a tensor of
    the same dtype (`1.0 / (base ** (pos / dim))`); None when promotion could change it."""
    sides = (node.left, node.right)
    known = [_dtype_of(facts, side, statement, depth + 1) for side in sides]
    floating = {dtype for dtype in known if dtype in _FLOATING}
    if len(floating) != 1:
        return None
    dtype = floating.pop()
    for side, side_dtype in zip(sides, known):
        if side_dtype != dtype and not is_python_number(facts, facts.scopes, side):
            return None
    return dtype


def _allocation_dtype(
    facts: ModuleFacts, call: cst.Call, statement: cst.CSTNode | None, depth: int
) -> str | None:
    """The dtype an allocation is given: its `dtype=` (`torch.arange(n, dtype=torch.float32)`),
    else the dtype of the tensor a `*_like` or `x.new_*` call copies it from."""
    qualified = facts.imports.resolve(call.func)
    is_method = (
        qualified is None
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in _NEW_METHODS
    )
    if not is_method and qualified not in torch_ops.FRESH_FUNCTIONS:
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            return _named_dtype(facts, arg.value)
    if is_method:
        return _dtype_of(facts, call.func.value, statement, depth + 1)  # type: ignore[union-attr]
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if qualified in torch_ops.LIKE_FUNCTIONS and positional:
        return _dtype_of(facts, positional[0], statement, depth + 1)
    return None


def _moves_device_only(call: cst.Call) -> bool:
    """`x.cuda()`, `x.cpu()`, or `x.to(...)` given only devices (`y.device`, `"cuda"`, a name
    ending in `device`) and flags: the dtype stays."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return False
    if func.attr.value in torch_ops.DEVICE_METHODS:
        return True
    if func.attr.value != "to" or not call.args:
        return False
    for arg in call.args:
        if arg.star:
            return False
        if arg.keyword is not None:
            if arg.keyword.value in ("non_blocking", "copy", "memory_format"):
                continue
            if arg.keyword.value != "device":
                return False
        if not _spells_a_device(arg.value):
            return False
    return True


def _spells_a_device(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.SimpleString):
        return True
    return (dotted(node) or "").split(".")[-1].endswith("device")


def bool_masks_by_use(facts: ModuleFacts, func: cst.FunctionDef) -> frozenset[str]:
    """The parameters of `func` it passes, as they are or through views, as the mask of an op
    that raises on any other dtype (`x.masked_fill(~mask.unsqueeze(-1), 0.0)`,
    `torch_ops.BOOL_ONLY_MASK_METHODS`): bool tensors wherever the function runs, an earlier
    read of the parameter included."""
    found: set[str] = set()
    for call in descendants(func.body, cst.Call):
        mask = _bool_only_mask(facts, call)
        if mask is None or facts.function_around(call) is not func:
            continue
        statement = statement_of(facts, call)
        for _ in range(_MAX_DEPTH):
            mask = _view_source(facts, mask)
            if not isinstance(mask, cst.Name):
                break
            if reads_the_parameter(facts, mask, statement):
                found.add(mask.value)
                break
            assigned = reaching_assignment(facts, mask, statement)
            if assigned is None:
                break
            mask, statement = assigned[0].value, assigned[1]
    return frozenset(found)


def _bool_only_mask(facts: ModuleFacts, call: cst.Call) -> cst.BaseExpression | None:
    """The mask argument of `x.masked_fill(mask, v)` / `torch.masked_fill(x, mask, v)`."""
    if not isinstance(call.func, cst.Attribute) or any(a.star for a in call.args):
        return None
    name = call.func.attr.value
    if name not in torch_ops.BOOL_ONLY_MASK_METHODS:
        return None
    qualified = facts.imports.resolve(call.func)
    if qualified is not None and qualified != f"torch.{name}":
        return None
    keyword = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "mask"]
    position = torch_ops.BOOL_ONLY_MASK_METHODS[name] + (qualified is not None)
    positional = [a.value for a in call.args if a.keyword is None]
    return keyword[0] if keyword else positional[position] if len(positional) > position else None


def _view_source(facts: ModuleFacts, node: cst.BaseExpression) -> cst.BaseExpression:
    """What `node` shows the elements of, in the same dtype: through `~`, indexing, views,
    expands and moves to a device."""
    while True:
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            node = node.expression
        elif isinstance(node, cst.Subscript):
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and facts.imports.resolve(node.func) is None
            and (node.func.attr.value in torch_ops.VIEW_METHODS or _moves_device_only(node))
        ):
            node = node.func.value
        else:
            return node

