"""What may rebind a name, or change the object it holds, between two points of a function.

A fix that reads a value at one point (a tensor narrowed once and reused, a `dim` read again
at a later reduction) must know that nothing in between rebinds the name or changes the
object: an assignment, an in-place or unknown method, an item or attribute store, passing it
to a call that may keep or change it, a nested function declaring it `nonlocal`, or, for a
global, any call at all. Between two points means every statement that may run after the
first and before the second: the text in between, and all of any loop (or comprehension)
around either point, whose other iterations run in between too.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.tree import walk

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts
    from stridelint.analysis.scopes import Scope, Scopes

_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
# Methods that neither change their receiver nor keep a reference to their arguments.
READ_ONLY_METHODS = (
    torch_ops.VIEW_METHODS | torch_ops.ELEMENTWISE_METHODS | torch_ops.REDUCTIONS.keys()
    | torch_ops.CAST_METHODS | torch_ops.COPY_METHODS | torch_ops.LAYOUT_METHODS
    | torch_ops.DEVICE_METHODS
    | {"size", "stride", "dim", "numel", "item", "tolist", "element_size", "nelement",
       "data_ptr", "storage_offset", "is_contiguous", "get_device", "to", "type", "type_as",
       "count", "index", "get", "keys", "values", "items", "copy", "nonzero", "argmax",
       "argmin", "cumsum", "flip", "roll", "numpy", "startswith", "endswith", "format"}
)  # fmt: skip
# Methods whose result may be the receiver itself (`x.float()` of a float tensor is `x`).
MAY_RETURN_SELF = torch_ops.CAST_METHODS | torch_ops.DEVICE_METHODS | {
    "to", "type", "type_as", "contiguous", "expand_as", "view_as",
}  # fmt: skip
_PURE_BUILTINS = frozenset(
    {"len", "int", "float", "bool", "str", "repr", "isinstance", "issubclass", "range",
     "print", "hash", "id", "type", "sorted", "format", "abs", "round", "min", "max", "sum"}
)  # fmt: skip
_MAY_RETURN_ARGUMENT = frozenset({"torch.as_tensor", "torch.asarray", "abs", "round", "min", "max"})


@dataclass(frozen=True)
class Region:
    """Character spans of the code that may run between two points."""

    spans: tuple[tuple[int, int], ...]

    def covers(self, span: tuple[int, int]) -> bool:
        return any(start <= span[0] and span[1] <= end for start, end in self.spans)


def region_between(
    facts: ModuleFacts, owner: cst.CSTNode, start: int, end: int, anchors: Iterable[cst.CSTNode]
) -> Region:
    """The code that may run after offset `start` and before offset `end` inside `owner`
    (a function), where `anchors` are the nodes at the two points: the text in between, and
    every loop around an anchor."""
    spans = [(start, end)] if start <= end else []
    parents = facts.parents
    for anchor in anchors:
        node = parents.get(anchor)
        while node is not None and node is not owner:
            if isinstance(node, _LOOPS):
                spans.append(facts.span(node))
            node = parents.get(node)
    return Region(tuple(spans))


def changes(
    facts: ModuleFacts,
    scopes: Scopes,
    owner: Scope,
    names: Iterable[str],
    region: Region,
    pure: frozenset[str] = frozenset(),
) -> str | None:
    """Why one of `names` (as read in `owner`) may be rebound, or its object changed, in the
    region; None when nothing there can. `pure` names module functions known to change
    nothing (a fix's own helpers)."""
    if scopes.uses_dynamic_scope(owner):
        return "the function calls `locals`, `vars`, `eval` or `exec`"
    calls, stores = _actions(facts, owner.node)
    covered = [n for n in calls if region.covers(facts.span(n))]
    if any(isinstance(n, (cst.Yield, cst.Await)) for n in covered):
        return "the function yields or awaits in between, and its caller may change anything"
    unknown = [n for n in covered if not _known_pure(facts, scopes, n, pure)]
    unknown += [n for n in stores if region.covers(facts.span(n))]
    for name in names:
        binding = scopes.lookup(owner, name)
        if binding is None:
            continue  # a built-in, or unbound: reading it raises in both forms
        if binding is not owner:
            if unknown:
                kind = "a global" if binding is scopes.module else "an enclosing function's"
                return f"`{name}` is {kind} variable, which code in between may change"
            continue
        reason = _local_changes(facts, scopes, owner, name, region, unknown, pure)
        if reason is not None:
            return reason
    return None


def _local_changes(
    facts: ModuleFacts,
    scopes: Scopes,
    owner: Scope,
    name: str,
    region: Region,
    unknown: list[cst.CSTNode],
    pure: frozenset[str],
) -> str | None:
    runs_code = bool(unknown)
    if runs_code and scopes.declared_elsewhere(owner, name):
        return f"a nested function declares `{name}` nonlocal and a call in between may run it"
    if runs_code and _may_be_shared(facts, scopes, owner, name, region, pure):
        return (
            f"`{facts.snippet(unknown[0])}` may change the object `{name}` holds, which"
            " other code may reach (an argument, an alias, a container)"
        )
    for binding in owner.bindings.get(name, ()):
        if binding.kind != "param" and region.covers(facts.span(binding.node)):
            return f"`{name}` is rebound in between"
    for load in scopes.loads_of(owner, name):
        load_scope = scopes.scope_of(load)
        if load_scope is not owner and load_scope.kind != "comprehension":
            if runs_code:  # a nested function or lambda reads it: a call may run it
                return f"`{name}` is used by a nested function that a call in between may run"
            continue
        if not region.covers(facts.span(load)):
            continue
        reason = use_changes(facts, scopes, load, pure)
        if reason is not None:
            return f"`{name}`: {reason}"
    return None


def _may_be_shared(
    facts: ModuleFacts, scopes: Scopes, owner: Scope, name: str, region: Region,
    pure: frozenset[str],
) -> bool:  # fmt: skip
    """Whether code other than this function's reads of `name` may reach its object: it is
    a parameter, or bound to something other than a new object (`x.expand(...)`, `a != 0`),
    or some use hands it on (an alias, a container, an unknown call)."""
    for binding in owner.bindings.get(name, ()):
        if binding.kind != "assign":
            return True
        target = facts.parents.get(binding.node)
        assign = facts.parents.get(target)
        if not isinstance(assign, cst.Assign) or not isinstance(
            assign.value, (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)
        ):
            return True
    loads = [load for load in scopes.loads_of(owner, name) if not region.covers(facts.span(load))]
    return any(use_changes(facts, scopes, load, pure) is not None for load in loads)


def _known_pure(facts: ModuleFacts, scopes: Scopes, call: cst.CSTNode, pure: frozenset[str]) -> bool:
    if not isinstance(call, cst.Call):
        return False
    if _writes_out(call):
        return False
    if isinstance(call.func, cst.Name) and call.func.value in pure:
        return True
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in MAY_RETURN_SELF:
        return True
    return _pure_callee(facts, scopes, call) is not None


_Actions = tuple[list[cst.CSTNode], list[cst.CSTNode]]
_STORES = (cst.AssignTarget, cst.AugAssign, cst.Del)
# A function's calls and stores, by module: every fix of a pass asks about the same few
# functions, once for each value it reads again.
_ACTIONS: weakref.WeakKeyDictionary[ModuleFacts, dict[cst.CSTNode, _Actions]] = (
    weakref.WeakKeyDictionary()
)


def _actions(facts: ModuleFacts, root: cst.CSTNode) -> _Actions:
    """The calls, yields and awaits under `root`; and its item and attribute assignments,
    augmented assignments and deletions: writes into some object (the target's own names are
    checked as uses)."""
    known = _ACTIONS.setdefault(facts, {})
    if root not in known:
        calls, stores = [], []
        for node in walk(root):
            if isinstance(node, (cst.Call, cst.Yield, cst.Await)):
                calls.append(node)
            elif isinstance(node, _STORES) and not isinstance(node.target, cst.Name):
                stores.append(node)
        known[root] = (calls, stores)
    return known[root]


def use_changes(
    facts: ModuleFacts, scopes: Scopes, expression: cst.BaseExpression,
    pure: frozenset[str] = frozenset(),
) -> str | None:  # fmt: skip
    """Why this use of a value may change the object or let it escape (None: a read)."""
    parents = facts.parents
    node: cst.CSTNode = expression
    while True:
        parent = parents.get(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            call = parents.get(parent)
            if isinstance(call, cst.Call) and call.func is parent:
                method = parent.attr.value
                if _writes_out(call):
                    return f"`.{method}(out=...)` writes into an argument"
                if method in MAY_RETURN_SELF:
                    node = call  # the result may be the object itself
                    continue
                if method in READ_ONLY_METHODS:
                    return None
                return f"`.{method}()` may change it"
            if _is_store_target(parents, parent):
                return "an attribute of it is assigned"
            node = parent
        elif isinstance(parent, cst.Subscript) and parent.value is node:
            if _is_store_target(parents, parent):
                return "an item of it is assigned"
            node = parent
        elif isinstance(parent, cst.Arg):
            call = parents.get(parent)
            if parent.keyword is not None and parent.keyword.value == "out":
                return "it is written through `out=`"
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in pure:
                return None
            callee = _pure_callee(facts, scopes, call)
            if callee is None:
                return "it is passed to a call that may change or keep it"
            if callee not in _MAY_RETURN_ARGUMENT:
                return None
            node = call
        elif isinstance(parent, (cst.Index, cst.Slice, cst.SubscriptElement)):
            return None  # used as an index
        elif isinstance(
            parent,
            (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget,
             cst.FormattedStringExpression, cst.Expr),
        ):  # fmt: skip
            return None
        elif isinstance(parent, (cst.For, cst.CompFor)) and node is parent.iter:
            return None
        elif isinstance(parent, (cst.If, cst.While, cst.IfExp)) and node is parent.test:
            return None
        else:
            return "it may be aliased or escape here"


def effects(facts: ModuleFacts, scopes: Scopes, nodes: Iterable[cst.CSTNode]) -> str | None:
    """Why evaluating these expressions may rebind a name or change an object (None: they
    only read): a call not known to be read-only, `:=`, `yield` or `await`."""
    for root in nodes:
        for node in walk(root):
            if isinstance(node, (cst.NamedExpr, cst.Yield, cst.Await)):
                return "it binds a name or suspends the function"
            if isinstance(node, cst.Lambda):
                continue
            if isinstance(node, cst.Call):
                if _writes_out(node):
                    return "a call writes through `out=`"
                if _pure_callee(facts, scopes, node) is None:
                    return f"`{facts.snippet(node.func)}(...)` may change something"
    return None


def _writes_out(call: cst.Call) -> bool:
    return any(a.keyword is not None and a.keyword.value == "out" for a in call.args)


def _pure_callee(facts: ModuleFacts, scopes: Scopes, call: cst.CSTNode) -> str | None:
    """The name of a call known not to change or keep its arguments, else None."""
    if not isinstance(call, cst.Call):
        return None
    func = call.func
    if isinstance(func, cst.Name) and func.value in _PURE_BUILTINS and scopes.is_builtin(func):
        return func.value
    root = func
    while isinstance(root, cst.Attribute):
        root = root.value
    shadowed = isinstance(root, cst.Name) and scopes.resolve(root) is not scopes.module
    qualified = "" if shadowed else facts.imports.resolve(func) or ""
    if qualified.startswith("math."):
        return qualified
    if qualified.startswith("torch.") and not qualified.endswith("_"):
        return qualified
    if isinstance(func, cst.Attribute) and func.attr.value in READ_ONLY_METHODS:
        return func.attr.value  # a tensor method keeps no reference to its arguments
    return None


def _is_store_target(parents: dict, node: cst.CSTNode) -> bool:
    child = node
    parent = parents.get(child)
    while isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
        child, parent = parent, parents.get(parent)
    if isinstance(parent, (cst.AssignTarget, cst.Del)):
        return True
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
        return child is parent.target
    if isinstance(parent, cst.AsName):
        return True
    return False
