"""Whether an expression surely evaluates to a Python number, never to a tensor.

A fix that narrows one operand of `mask * w` may do so only when `w` cannot be a tensor
(semantics §0 rule 5). `abs(w)`, `round(w)`, `min(a, b)` and `math.prod(xs)` return a tensor
for tensor arguments, so they are numbers only when their arguments are; `int(...)`,
`float(...)`, `len(...)`, `t.item()`, `t.dim()`, `t.size(d)`, `t.shape[d]` always are (or
raise). A name is a number when every binding of it in its function is: a parameter
annotated `int`/`float`/`bool`/`complex`, an assignment of a number, a loop over `range`.
Built-in and module names count only where nothing shadows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis.evidence import scalar_parameters

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.scopes import Scopes

_NUMBER_BUILTINS = frozenset({"int", "float", "bool", "len", "complex"})
_PASS_THROUGH_BUILTINS = frozenset({"abs", "round", "min", "max", "pow", "sum"})
_NUMBER_METHODS = frozenset(
    {"dim", "ndimension", "numel", "nelement", "item", "element_size", "data_ptr",
     "storage_offset", "get_device", "is_contiguous"}
)  # fmt: skip
_NUMBER_METHODS_OF_A_DIM = frozenset({"size", "stride"})  # with one dim argument
_DEPTH = 6


def is_python_number(
    facts: ModuleFacts, scopes: Scopes, node: cst.BaseExpression, depth: int = 0
) -> bool:
    if depth > _DEPTH:
        return False
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(node, cst.UnaryOperation) and not isinstance(node.operator, cst.Not):
        return is_python_number(facts, scopes, node.expression, depth + 1)
    if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
        return all(is_python_number(facts, scopes, n, depth + 1) for n in (node.left, node.right))
    if isinstance(node, cst.Name):
        return _is_number_name(facts, scopes, node, depth)
    if isinstance(node, cst.Call):
        return _is_number_call(facts, scopes, node, depth)
    if isinstance(node, cst.Attribute):
        return node.attr.value == "ndim"
    if isinstance(node, cst.Subscript):
        return _is_size_item(facts, scopes, node, depth)
    return False


def _is_number_name(facts: ModuleFacts, scopes: Scopes, name: cst.Name, depth: int) -> bool:
    if name.value in ("True", "False"):
        return True
    owner = scopes.resolve(name)
    if owner is None or owner.kind != "function":
        return False
    annotated = scalar_parameters(owner.node)
    bindings = owner.bindings.get(name.value, [])
    if not bindings:
        return False
    for binding in bindings:
        if binding.kind == "param":
            if name.value not in annotated:
                return False
        elif binding.kind == "assign":
            target = facts.parents.get(binding.node)
            assign = facts.parents.get(target)
            if not isinstance(target, cst.AssignTarget) or not isinstance(assign, cst.Assign):
                return False  # unpacked from a tuple: unknown
            if not is_python_number(facts, scopes, assign.value, depth + 1):
                return False
        elif binding.kind == "for":
            loop = facts.parents.get(binding.node)
            over_range = isinstance(loop, cst.For) and _is_range(scopes, loop.iter)
            if not (over_range and loop.target is binding.node):
                return False
        else:
            return False
    return True


def _is_range(scopes: Scopes, node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "range"
        and scopes.is_builtin(node.func)
    )


def _is_number_call(facts: ModuleFacts, scopes: Scopes, call: cst.Call, depth: int) -> bool:
    func = call.func
    arguments = [a.value for a in call.args]
    if isinstance(func, cst.Name):
        if not scopes.is_builtin(func):
            return False
        if func.value in _NUMBER_BUILTINS:
            return True
        if func.value in _PASS_THROUGH_BUILTINS:
            return bool(arguments) and not any(a.star for a in call.args) and all(
                is_python_number(facts, scopes, a, depth + 1) for a in arguments
            )
        return False
    if not isinstance(func, cst.Attribute):
        return False
    if _resolves_to_module(facts, scopes, func, "math"):
        if func.attr.value == "prod":  # multiplies whatever it is given, tensors too
            return False
        return True
    method = func.attr.value
    if method in _NUMBER_METHODS:
        return not _resolves_to_module(facts, scopes, func, None)
    if method in _NUMBER_METHODS_OF_A_DIM:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        return len(call.args) == 1 and len(positional) == 1
    return False


def _resolves_to_module(
    facts: ModuleFacts, scopes: Scopes, func: cst.Attribute, module: str | None
) -> bool:
    """Whether `func` is `<module>.name` through an unshadowed import (any module if None)."""
    root = func.value
    if not isinstance(root, cst.Name) or scopes.resolve(root) is not scopes.module:
        return False
    qualified = facts.imports.resolve(func) or ""
    if module is None:
        return bool(qualified)
    return qualified == f"{module}.{func.attr.value}"


def _is_size_item(facts: ModuleFacts, scopes: Scopes, node: cst.Subscript, depth: int) -> bool:
    """`t.shape[d]` or `t.size()[d]` with a number `d`: one size, a Python int."""
    base = node.value
    shape = isinstance(base, cst.Attribute) and base.attr.value == "shape"
    size = (
        isinstance(base, cst.Call)
        and isinstance(base.func, cst.Attribute)
        and base.func.attr.value == "size"
        and not base.args
    )
    if not (shape or size) or len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and is_python_number(facts, scopes, index.value, depth + 1)
