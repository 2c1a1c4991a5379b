"""How the code uses a tensor value: reads it through its strides, needs it dense, or lets
it escape.

Whether a broadcast result may stay a stride-0 view depends on everything that sees it: an
elementwise op or a reduction reads any layout; an in-place write, `.view(-1)`, or a kernel
that receives no strides needs a dense tensor (semantics §1.1, §1.3); a return, a store or
an unknown call lets code we cannot see observe the layout (§2.3). `uses_of` follows the
value through the names it is bound to and the views of it to every such use.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.bindings import loads_after, reads_the_parameter, statement_of
from stridelint.analysis.purity import (
    READING_BUILTINS,
    only_reads_arguments,
    writes_in_place,
)
from stridelint.analysis.strides import is_stride_call
from stridelint.analysis.tree import walk

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import CallSite, FunctionFlow
    from stridelint.analysis.module import ModuleFacts

READ = "read"  # reads it through its strides, whatever they are (elementwise op, reduction)
STRIDED_LAUNCH = "strided-launch"  # a kernel launch that also receives its strides
DENSE = "dense"  # needs a dense tensor: written in place, `.view`, a kernel given no strides
OPAQUE = "opaque"  # escapes or observes the layout: returned, stored, an unknown call

# Results that may be the tensor itself or a view of it: follow them like the tensor.
_ALIAS_METHODS = (
    (torch_ops.VIEW_METHODS - {"view", "view_as"})
    | torch_ops.DEVICE_METHODS
    | torch_ops.CAST_METHODS
    | torch_ops.LAYOUT_METHODS
    | {"to", "type", "type_as", "contiguous"}
)
# Methods that read their receiver (any strides) into a new tensor.
_READING_METHODS = (
    torch_ops.ELEMENTWISE_METHODS
    | frozenset(torch_ops.REDUCTIONS)
    | {"clone", "argmax", "argmin", "cumsum", "cumprod", "nonzero", "sort", "topk",
       "masked_select", "matmul", "mm", "bmm", "softmax", "log_softmax", "var", "std",
       "equal", "allclose", "isclose", "index_select", "gather", "expand_as"}
)  # fmt: skip
_READING_FUNCTIONS = (
    torch_ops.ELEMENTWISE_FUNCTIONS
    | frozenset(torch_ops.REDUCTION_FUNCTIONS)
    | {f"torch.{name}" for name in (
        "cat", "stack", "matmul", "mm", "bmm", "einsum", "equal", "allclose", "isclose",
        "softmax", "log_softmax", "index_select", "gather", "masked_select", "nonzero",
        "broadcast_shapes", "cumsum", "argmax", "argmin",
    )}
)  # fmt: skip


@dataclass(frozen=True)
class Use:
    """One place that sees the value: how it uses it, and a phrase saying so for messages."""

    node: cst.CSTNode
    kind: str  # READ | STRIDED_LAUNCH | DENSE | OPAQUE
    why: str
    # DENSE: LAUNCH | VIEW | WRITE, what needs it dense; READ: RESHAPE | IDENTITY
    need: str | None = None
    operand: cst.BaseExpression | None = None  # the argument it is passed as, where it is one


# What needs a DENSE use's tensor dense.
LAUNCH = "launch"  # a kernel launch given no strides: passing them removes the need
VIEW = "view"  # `.view`/`.view_as`, which raise on a merged stride-0 dim
WRITE = "write"  # an in-place write or `out=`: the copy is a buffer the code fills
# A READ use that may merge dims: `reshape`/`flatten` of the tensor, a view if it is dense but
# a copy of a stride-0 view whose broadcast dim it merges (semantics §1.3).
RESHAPE = "reshape"
STORED = "stored"  # kept in a container or written into another tensor: its reader is unseen
IDENTITY = "identity"  # READ by `is` / `is not`: no element is read


def uses_of(facts: ModuleFacts, flow: FunctionFlow, node: cst.BaseExpression) -> list[Use]:
    """Every use of the tensor `node` evaluates to, following names it is bound to and views
    or aliases of it (`.t()`, `[i]`, a same-dtype `.to()` that returns it), to the ops that
    consume it."""
    walker = _UseWalker(facts, flow)
    walker.expression(node)
    return walker.uses


def is_joined(facts: ModuleFacts, use: Use) -> bool:
    """Whether the use is `torch.cat([..., t, ...])` or `torch.stack`: the join writes every
    element of `t` into its own dense output anyway."""
    call = facts.parents.get(use.node) if isinstance(use.node, cst.Arg) else None
    return isinstance(call, cst.Call) and (
        facts.imports.resolve(call.func) in torch_ops.JOIN_FUNCTIONS
    )


def is_output_sized(flow: FunctionFlow, use: Use) -> bool:
    """Whether the use costs as much as materializing `t` whatever `t`'s layout, so that
    materializing it first costs at most one more buffer of that size: `t` as the index of a
    gather or scatter has the shape of what the op writes or reads. (An elementwise op that
    also reads a dense tensor is not enough: the tensor may be a 0-d `torch.tensor(1.0)`.)"""
    return isinstance(use.node, cst.Call) and (
        _indexes_a_gather(flow, use.node) or _einsum_writes_as_many(flow, use)
    )


# Ops whose `index` tensor has the shape of their output (gather, take_along_dim) or of their
# `src` (scatter): an index as large as that costs what the op reads or writes anyway.
_INDEXED_OPS = frozenset(
    {"gather", "take_along_dim", "scatter", "scatter_", "scatter_add", "scatter_add_",
     "scatter_reduce", "scatter_reduce_"}
)  # fmt: skip


def _indexes_a_gather(flow: FunctionFlow, call: cst.Call) -> bool:
    """Whether a materialized broadcast is the `index` of `x.gather(d, index)`,
    `x.scatter_add_(d, index, src)` or `torch.gather(x, d, index)`."""
    from stridelint.analysis.values import Derived

    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else None
    if name not in _INDEXED_OPS:
        return False
    is_method = flow.facts.imports.resolve(func) is None
    position = 1 if is_method else 2
    positional = [a for a in call.args if a.keyword is None and not a.star]
    index = next((a.value for a in call.args if a.keyword and a.keyword.value == "index"), None)
    if index is None and len(positional) > position:
        index = positional[position].value
    return index is not None and isinstance(flow.value_of(index), Derived)


def _einsum_writes_as_many(flow: FunctionFlow, use: Use) -> bool:
    """Whether the tensor is an operand of `torch.einsum("bd,bdn->bdn", a, t)` whose every
    subscript is one of the output's: the output then has at least as many elements as `t`
    (each output size is the one its letter has in every operand, or 1)."""
    call = use.node
    if use.operand is None or not isinstance(call, cst.Call) or not call.args:
        return False
    if flow.facts.imports.resolve(call.func) != "torch.einsum":
        return False
    spec = call.args[0].value
    text = spec.evaluated_value if isinstance(spec, cst.SimpleString) else None
    if not isinstance(text, str) or "->" not in text or "." in text:
        return False
    inputs, output = text.replace(" ", "").split("->")
    operands = [a.value for a in call.args[1:]]
    if any(a.star or a.keyword for a in call.args) or len(operands) != len(inputs.split(",")):
        return False
    return any(
        operand is use.operand and set(letters) <= set(output)
        for letters, operand in zip(inputs.split(","), operands)
    )


def passes_strides(facts: ModuleFacts, launch: cst.Call, tensor: cst.BaseExpression) -> bool:
    """Whether a kernel launch also receives `tensor`'s strides (`*t.stride()`, `t.stride(0)`)."""
    code = facts.text_of(tensor)
    for arg in launch.args:
        value = arg.value
        while isinstance(value, cst.Subscript):
            value = value.value
        if is_stride_call(value) and facts.text_of(value.func.value) == code:
            return True
    return False


# What each comprehension is called in messages (`(x.view(...).flatten(1, 3) for x in xs)`).
_COMPREHENSIONS = {
    cst.GeneratorExp: "generator expression",
    cst.ListComp: "list comprehension",
    cst.SetComp: "set comprehension",
}


class _UseWalker:
    def __init__(self, facts: ModuleFacts, flow: FunctionFlow, *, into_calls: bool = True) -> None:
        self.facts = facts
        self.flow = flow
        self.into_calls = into_calls  # look into the module functions it is passed to
        self.parents = facts.parents
        self.uses: list[Use] = []
        self._followed: set[tuple[str, cst.CSTNode]] = set()

    def add(
        self,
        node: cst.CSTNode,
        kind: str,
        why: str,
        need: str | None = None,
        operand: cst.BaseExpression | None = None,
    ) -> None:
        self.uses.append(Use(node, kind, why, need, operand))

    def code(self, node: cst.CSTNode) -> str:
        return self.facts.snippet(node, 40)

    def expression(self, node: cst.BaseExpression) -> None:
        parent = self.parents.get(node)
        if isinstance(parent, cst.ComparisonTarget):
            parent = self.parents[parent]
        if isinstance(parent, cst.Comparison) and _tests_identity(parent):
            self.add(parent, READ, f"`{self.code(parent)}` tests its identity", IDENTITY)
        elif isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
            self.add(parent, READ, f"`{self.code(parent)}` reads it")
        elif isinstance(parent, cst.IfExp):
            if parent.test is node:
                self.add(parent, READ, "it is a condition")
            else:
                self.expression(parent)
        elif isinstance(parent, cst.Attribute) and parent.value is node:
            self.attribute(parent)
        elif isinstance(parent, cst.Subscript) and parent.value is node:
            if _is_store_target(self.parents, parent):
                self.add(parent, DENSE, f"`{self.code(parent)}` is written", WRITE)
            else:
                self.expression(parent)  # a view (or a gather): follow it like the tensor
        elif isinstance(parent, cst.Index):
            self.add(parent, READ, "it indexes another tensor")
        elif isinstance(parent, cst.Arg):
            self.argument(parent, node)
        elif isinstance(parent, cst.Element):
            self.element(parent)
        elif isinstance(parent, cst.DictElement) and parent.value is node:
            self.add(parent, OPAQUE, "it is stored in a container", STORED)
        elif isinstance(parent, cst.Assign) and parent.value is node:
            for target in parent.targets:
                self.target(target.target, parent)
        elif isinstance(parent, cst.AnnAssign) and parent.value is node:
            self.target(parent.target, parent)
        elif isinstance(parent, cst.AugAssign):
            if parent.value is node:
                self.add(parent, READ, f"`{self.code(parent)}` reads it")
            else:
                self.add(parent, DENSE, f"`{self.code(parent)}` writes into it in place", WRITE)
        elif isinstance(parent, cst.Expr):
            self.add(parent, READ, "its value is discarded")
        elif isinstance(parent, cst.Return):
            self.add(parent, OPAQUE, "it is returned to the caller")
        elif type(parent) in _COMPREHENSIONS and parent.elt is node:
            self.add(parent, OPAQUE, f"it is each element of a {_COMPREHENSIONS[type(parent)]}")
        else:
            where = self.code(parent) if parent is not None else "?"
            self.add(node, OPAQUE, f"it is used in `{where}`")

    def attribute(self, attribute: cst.Attribute) -> None:
        name = attribute.attr.value
        call = self.parents.get(attribute)
        if not (isinstance(call, cst.Call) and call.func is attribute):
            if name in torch_ops.METADATA_ATTRIBUTES:
                self.add(attribute, READ, f"`.{name}` is read")
            elif name in torch_ops.VIEW_ATTRIBUTES:
                self.expression(attribute)
            else:
                self.add(attribute, OPAQUE, f"`.{name}` is read")
            return
        if name == "stride":
            self.stride_call(call)
        elif name in torch_ops.METADATA_METHODS:
            self.add(call, READ, f"`.{name}()` is read")
        elif name in ("view", "view_as"):
            # semantics §1.1: `view` raises when it would merge a stride-0 dim
            self.add(call, DENSE, f"`{self.code(call)}` needs a dense layout", VIEW)
        elif name in torch_ops.LAYOUT_QUERY_METHODS:
            self.add(call, OPAQUE, f"`.{name}()` observes its memory layout")
        elif writes_in_place(name):
            self.add(call, DENSE, f"`{self.code(call)}` writes into it in place", WRITE)
        elif name in torch_ops.LAYOUT_METHODS:
            self.add(call, READ, f"`.{name}()` reshapes it", RESHAPE)
            self.expression(call)  # a view of it while it is dense
        elif name in _ALIAS_METHODS:
            self.expression(call)  # may return the tensor itself or a view of it
        elif name in _READING_METHODS:
            self.add(call, READ, f"`.{name}()` reads it")
        else:
            self.add(call, OPAQUE, f"`.{name}()` is called on it")

    def stride_call(self, call: cst.Call) -> None:
        node: cst.CSTNode = call
        while isinstance(self.parents.get(node), cst.Subscript):
            node = self.parents[node]  # `t.stride()[0]`
        parent = self.parents.get(node)
        if isinstance(parent, cst.Arg) and self.parents.get(parent) in self.flow.launches:
            self.add(call, READ, "its strides are passed to the kernel")
        else:
            self.add(call, OPAQUE, f"`{self.code(call)}` reads its strides")

    def argument(self, arg: cst.Arg, node: cst.BaseExpression) -> None:
        call = self.parents[arg]
        if arg.keyword is not None and arg.keyword.value == "out":
            self.add(call, DENSE, f"`{self.code(call)}` writes into it as `out=`", WRITE)
            return
        if call in self.flow.launches:
            kernel = self.code(call.func.value) if isinstance(call.func, cst.Subscript) else "?"
            if passes_strides(self.facts, call, node):
                self.add(call, STRIDED_LAUNCH, f"`{kernel}` receives it with its strides")
            else:
                self.add(call, DENSE, f"`{kernel}` receives it without its strides", LAUNCH)
            return
        site = self.flow.calls.get(call) if self.into_calls else None
        launch = _launch_in_callee(self.facts, site, node) if site is not None else None
        if launch is not None:
            self.add(call, DENSE, launch, LAUNCH)
            return
        func = call.func
        qualified = self.facts.imports.resolve(func)
        if isinstance(func, cst.Attribute) and qualified is None:
            method = func.attr.value
            reads = method in _READING_METHODS or only_reads_arguments(method)
            kind, why = (READ, f"`.{method}()` reads it") if reads else (
                OPAQUE, f"it is passed to `.{method}()`"
            )
            self.add(call, kind, why)
        elif qualified in torch_ops.BROADCAST_FUNCTIONS:
            self.expression(call)  # `torch.broadcast_to(t, s)` is a view of it
        elif qualified in _READING_FUNCTIONS or (
            isinstance(func, cst.Name) and func.value in READING_BUILTINS
        ):
            self.add(call, READ, f"`{self.code(func)}` reads it", operand=node)
        else:
            self.add(call, OPAQUE, f"it is passed to `{self.code(func)}`")

    def element(self, element: cst.Element) -> None:
        container = self.parents.get(element)
        holder = self.parents.get(container)
        if isinstance(holder, cst.Arg):
            qualified = self.facts.imports.resolve(self.parents[holder].func)
            if qualified in _READING_FUNCTIONS:  # torch.cat([t, u])
                self.add(holder, READ, f"`{qualified.removeprefix('torch.')}` reads it")
                return
        if (
            isinstance(container, cst.Tuple)
            and isinstance(holder, cst.Assign)
            and holder.value is container
            and len(holder.targets) == 1
        ):
            target = holder.targets[0].target
            index = next(i for i, e in enumerate(container.elements) if e is element)
            if (
                isinstance(target, (cst.Tuple, cst.List))
                and len(target.elements) == len(container.elements)
                and not any(isinstance(e, cst.StarredElement) for e in container.elements)
            ):
                self.target(target.elements[index].value, holder)
                return
        if isinstance(holder, cst.Return):
            self.add(holder, OPAQUE, "it is returned to the caller")
            return
        self.add(element, OPAQUE, "it is stored in a container", STORED)

    def target(self, target: cst.BaseExpression, assign: cst.CSTNode) -> None:
        if not isinstance(target, cst.Name):
            self.add(target, OPAQUE, f"it is stored in `{self.code(target)}`", STORED)
            return
        statement = self.parents.get(assign)
        key = (target.value, assign)
        if key in self._followed:
            return
        self._followed.add(key)
        exposed = _exposed(self.facts, self.flow.func)
        if target.value in exposed.captured:
            self.add(target, OPAQUE, f"a nested function captures `{target.value}`")
        if exposed.binds_global(target.value):
            self.add(target, OPAQUE, f"`{target.value}` is a module-level name other modules see")
        for load in loads_after(self.facts, self.flow, target.value, statement):
            self.expression(load)


@dataclass(frozen=True)
class _Exposed:
    """Which names bound in a flow's function other code may see, read in one walk of it
    (not one per name followed)."""

    owner: cst.CSTNode
    captured: frozenset[str]  # every name a nested function, lambda or class mentions
    declared_global: frozenset[str]

    def binds_global(self, name: str) -> bool:
        """Whether assigning `name` in this flow binds a module attribute, which importers,
        later notebook cells and the functions of the module may read: every binding of
        top-level code, and a name a function declares `global`."""
        if isinstance(self.owner, cst.Module):
            return True
        return isinstance(self.owner, cst.FunctionDef) and name in self.declared_global


# Per module analysed (kept while its facts live), per function.
_EXPOSED: weakref.WeakKeyDictionary[ModuleFacts, dict[cst.CSTNode, _Exposed]] = (
    weakref.WeakKeyDictionary()
)


def _exposed(facts: ModuleFacts, owner: cst.CSTNode) -> _Exposed:
    """The names some function, lambda or class nested in owner mentions (code that may see
    the value bound to them whenever it runs), and the names owner declares `global`."""
    known = _EXPOSED.setdefault(facts, {})
    if owner not in known:
        captured: set[str] = set()
        declared: set[str] = set()
        for node in walk(owner):
            if node is not owner and isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                captured |= {n.value for n in walk(node) if isinstance(n, cst.Name)}
            elif isinstance(node, cst.Global):
                declared |= {item.name.value for item in node.names}
        known[owner] = _Exposed(owner, frozenset(captured), frozenset(declared))
    return known[owner]


def _launch_in_callee(facts: ModuleFacts, site: CallSite, node: cst.BaseExpression) -> str | None:
    """Why the module function `site` calls needs the argument `node` dense, where it hands
    the parameter to a kernel launched without its strides (a wrapper's `_launch(x, out)`
    helper); None otherwise. One call deep: what the callee passes on stays unseen."""
    key = next((k for k, expr, _ in site.arguments if expr is node), None)
    bound = facts.parameter_bound(site, key)
    if bound is None:
        return None
    callee, name = bound
    known = _CALLEE_LAUNCHES.setdefault(facts, {})
    if (callee, name) not in known:
        known[callee, name] = _parameter_launch(facts, callee, name)
    return known[callee, name]


# Per module analysed (kept while its facts live): (function, parameter) -> why, or None.
_CALLEE_LAUNCHES: weakref.WeakKeyDictionary[
    ModuleFacts, dict[tuple[cst.FunctionDef, str], str | None]
] = weakref.WeakKeyDictionary()


def _parameter_launch(facts: ModuleFacts, func: cst.FunctionDef, name: str) -> str | None:
    """Why `func` needs its parameter `name` dense when it launches a kernel with it and
    without its strides, following the loads that read what it was called with."""
    flow = facts.flows.get(func)
    if flow is None:
        return None
    walker = _UseWalker(facts, flow, into_calls=False)
    for load in facts.scopes.loads_of(facts.scopes.scope_of_function(func), name):
        statement = statement_of(facts, load)
        if facts.function_around(load) is func and reads_the_parameter(facts, load, statement):
            walker.expression(load)
    launch = next((u for u in walker.uses if u.need == LAUNCH), None)
    return None if launch is None else f"{launch.why} in `{facts.function_key(func)}`"


def _tests_identity(comparison: cst.Comparison) -> bool:
    """`t is None`, `t is not other`: compares objects, reads no element."""
    return all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in comparison.comparisons)


def _is_store_target(parents: dict[cst.CSTNode, cst.CSTNode], node: cst.CSTNode) -> bool:
    parent = parents.get(node)
    if isinstance(parent, cst.AssignTarget):
        return True
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
        return True
    return isinstance(parent, cst.Del)
