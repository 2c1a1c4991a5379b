"""Whether evaluating code has effects: writes into a tensor, rebinds a name, calls the unknown.

A fix that evaluates an expression again, earlier or in another order (the tensor before an
expand, repeated where the expanded name was used) is right only when the expression is
pure and nothing between the two places changes what its names hold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.tree import walk

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts

# Builtins that read their arguments and write none.
READING_BUILTINS = frozenset({"len", "float", "int", "bool", "print", "isinstance", "repr", "str"})

_PURE_METHODS = (
    torch_ops.VIEW_METHODS
    | torch_ops.CAST_METHODS
    | torch_ops.DEVICE_METHODS
    | torch_ops.ELEMENTWISE_METHODS
    | frozenset(torch_ops.REDUCTIONS)
    | {"to", "type", "size", "stride", "dim", "numel", "contiguous", "clone", "reshape",
       "flatten", "float", "item"}
)  # fmt: skip
_PURE_BUILTINS = frozenset({"len", "int", "float", "bool", "min", "max", "abs", "tuple", "slice"})
_PURE_FUNCTIONS = frozenset({"torch.finfo", "torch.iinfo", "torch.broadcast_shapes"})
# Calls that only make a view or read metadata: no new storage, no effect, cheap to repeat.
_VIEW_CALLS = torch_ops.VIEW_METHODS | {"size", "stride", "dim"}
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def writes_in_place(method: str) -> bool:
    """`t.add_(u)` writes into `t`; `t.unsqueeze_(0)` or `t.requires_grad_()` only changes its
    metadata (semantics §1.3)."""
    return (
        method.endswith("_")
        and not method.startswith("_")
        and method not in torch_ops.INPLACE_EXCEPTIONS
    )


def only_reads_arguments(method: str) -> bool:
    """An in-place method writes its receiver and only reads its arguments: `t.copy_(u)`
    leaves `u` alone. Not `t.set_(u)`, after which `t` shares `u`'s storage."""
    return method.endswith("_") and method != "set_"


def is_pure(facts: ModuleFacts, node: cst.CSTNode) -> bool:
    """Evaluating node again (or in another order) changes nothing and gives the same value."""
    for inner in walk(node):
        if isinstance(inner, (cst.NamedExpr, cst.Await, cst.Yield, cst.Lambda)):
            return False
        if isinstance(inner, cst.Call):
            qualified = facts.imports.resolve(inner.func) or ""
            if isinstance(inner.func, cst.Attribute) and not qualified:
                if inner.func.attr.value not in _PURE_METHODS:
                    return False
            elif isinstance(inner.func, cst.Name) and not qualified:
                if inner.func.value not in _PURE_BUILTINS:
                    return False
            elif not (
                qualified in torch_ops.ELEMENTWISE_FUNCTIONS
                or qualified in torch_ops.BROADCAST_FUNCTIONS
                or qualified in _PURE_FUNCTIONS
                or qualified.startswith("math.")
            ):
                return False
            if any(a.keyword is not None and a.keyword.value == "out" for a in inner.args):
                return False
    return True


def is_view_expression(facts: ModuleFacts, node: cst.CSTNode) -> bool:
    """No call but views, metadata reads and broadcasts, and no code that runs apart from
    the expression (walrus, await, yield, lambda, comprehension): stricter than `is_pure`,
    for an operand a fix moves into a narrowing or one statement earlier."""
    for inner in walk(node):
        if isinstance(inner, cst.Call):
            method = inner.func.attr.value if isinstance(inner.func, cst.Attribute) else None
            qualified = facts.imports.resolve(inner.func)
            if method not in _VIEW_CALLS and qualified not in torch_ops.BROADCAST_FUNCTIONS:
                return False
        elif isinstance(inner, (cst.NamedExpr, cst.Await, cst.Yield, cst.Lambda, *_COMPREHENSIONS)):
            return False
    return True


def may_change(facts: ModuleFacts, statement: cst.CSTNode, names: set[str]) -> bool:
    """Whether statement may rebind one of names or write into what one of them holds."""
    if facts.bound_names(statement) & names:
        return True
    for node in walk(statement):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.Del)):
            target = node.target
            if not isinstance(target, cst.Name) and _root_name(target) in names:
                return True  # `mask[0] = 1`, `self.mask = m`
        elif isinstance(node, cst.Call) and _call_may_write(facts, node, names):
            return True
    return False


def _call_may_write(facts: ModuleFacts, call: cst.Call, names: set[str]) -> bool:
    passed = any(_root_name(a.value) in names for a in call.args)
    func = call.func
    qualified = facts.imports.resolve(func)
    if isinstance(func, cst.Attribute) and qualified is None:
        method = func.attr.value
        if _root_name(func.value) in names:
            if writes_in_place(method):
                return True
            if method not in _PURE_METHODS and method not in torch_ops.METADATA_METHODS:
                return True
        if passed:
            return not (only_reads_arguments(method) or method in _PURE_METHODS)
        return False
    if not passed:
        return False
    if qualified is not None and qualified.startswith("torch."):
        return qualified.endswith("_") or any(
            a.keyword is not None and a.keyword.value == "out" for a in call.args
        )
    if isinstance(func, cst.Name) and func.value in _PURE_BUILTINS | READING_BUILTINS:
        return False
    return True  # a module function, an import or a kernel launch may write into it


def _root_name(node: cst.BaseExpression) -> str | None:
    """The name an attribute, subscript or method chain starts from: `m` for `m.t()[0].data`."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None
