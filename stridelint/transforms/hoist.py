"""Keep a broadcast tensor a stride-0 view: hoist an op before the expand, or drop a copy.

`x.expand(s).to(t)` materializes the logical size; `x.to(t).expand(s)` computes on the
storage and expands the result, with the same values (elementwise ops commute with
expand, semantics §2.4). The price is the layout: the result is now a stride-0 view, which
a later in-place write, `.view(-1)`, a kernel that assumes a dense layout or `data_ptr`
arithmetic can tell apart (semantics §1.3, §2.3). So every rewrite here comes with a walk
over the uses of the value it changes (`uses_of`), which says whether the stride-0 result
is unobservable (safe), may be observed (unsafe), or would break the code (no fix).

Also here, because SL301 and SL401 both need them: which dims an `expand` makes stride 0,
read from the code that builds the expanded tensor (`expanded_dims`), and the assignment
a name reads (`reaching_assignment`).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.dataflow import FunctionFlow
from stridelint.analysis.module import ModuleFacts
from stridelint.analysis.tree import assigned_names, walk
from stridelint.findings import Applicability, Edit, Fix

# ---- uses of a value ----------------------------------------------------------------------

READ = "read"  # reads it through its strides, whatever they are (elementwise op, reduction)
STRIDED_LAUNCH = "strided-launch"  # a kernel launch that also receives its strides
DENSE = "dense"  # needs a dense tensor: written in place, `.view`, a kernel given no strides
OPAQUE = "opaque"  # escapes or observes the layout: returned, stored, an unknown call

_METADATA_ATTRIBUTES = frozenset(
    {"shape", "ndim", "dtype", "device", "is_cuda", "layout", "requires_grad", "is_leaf"}
)
_METADATA_METHODS = frozenset(
    {"size", "dim", "numel", "nelement", "element_size", "get_device", "item", "tolist",
     "is_floating_point", "is_complex", "new_empty", "new_zeros", "new_ones",
     "new_full", "new_tensor"}
)  # fmt: skip
_LAYOUT_METHODS = frozenset(
    {"data_ptr", "storage_offset", "is_contiguous", "untyped_storage", "storage", "numpy",
     "is_set_to", "is_non_overlapping_and_dense"}
)  # fmt: skip
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
_READING_BUILTINS = frozenset({"len", "float", "int", "bool", "print", "isinstance", "repr", "str"})


@dataclass(frozen=True)
class Use:
    """One place that sees the value: how it uses it, and a phrase saying so for messages."""

    node: cst.CSTNode
    kind: str  # READ | STRIDED_LAUNCH | DENSE | OPAQUE
    why: str


def uses_of(facts: ModuleFacts, flow: FunctionFlow, node: cst.BaseExpression) -> list[Use]:
    """Every use of the tensor `node` evaluates to, following names it is bound to and views
    or aliases of it (`.t()`, `[i]`, a same-dtype `.to()` that returns it), to the ops that
    consume it."""
    walker = _UseWalker(facts, flow)
    walker.expression(node)
    return walker.uses


class _UseWalker:
    def __init__(self, facts: ModuleFacts, flow: FunctionFlow) -> None:
        self.facts = facts
        self.flow = flow
        self.parents = facts.parents
        self.uses: list[Use] = []
        self._followed: set[tuple[str, cst.CSTNode]] = set()

    def add(self, node: cst.CSTNode, kind: str, why: str) -> None:
        self.uses.append(Use(node, kind, why))

    def code(self, node: cst.CSTNode) -> str:
        return self.facts.snippet(node, 40)

    def expression(self, node: cst.BaseExpression) -> None:
        parent = self.parents.get(node)
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
            self.add(parent, READ, f"`{self.code(parent)}` reads it")
        elif isinstance(parent, cst.ComparisonTarget):
            owner = self.parents[parent]
            self.add(owner, READ, f"`{self.code(owner)}` reads it")
        elif isinstance(parent, cst.IfExp):
            if parent.test is node:
                self.add(parent, READ, "it is a condition")
            else:
                self.expression(parent)
        elif isinstance(parent, cst.Attribute) and parent.value is node:
            self.attribute(parent)
        elif isinstance(parent, cst.Subscript) and parent.value is node:
            if _is_store_target(self.parents, parent):
                self.add(parent, DENSE, f"`{self.code(parent)}` is written")
            else:
                self.expression(parent)  # a view (or a gather): follow it like the tensor
        elif isinstance(parent, cst.Index):
            self.add(parent, READ, "it indexes another tensor")
        elif isinstance(parent, cst.Arg):
            self.argument(parent, node)
        elif isinstance(parent, cst.Element):
            self.element(parent)
        elif isinstance(parent, cst.Assign) and parent.value is node:
            for target in parent.targets:
                self.target(target.target, parent)
        elif isinstance(parent, cst.AnnAssign) and parent.value is node:
            self.target(parent.target, parent)
        elif isinstance(parent, cst.AugAssign):
            if parent.value is node:
                self.add(parent, READ, f"`{self.code(parent)}` reads it")
            else:
                self.add(parent, DENSE, f"`{self.code(parent)}` writes into it in place")
        elif isinstance(parent, cst.Expr):
            self.add(parent, READ, "its value is discarded")
        elif isinstance(parent, cst.Return):
            self.add(parent, OPAQUE, "it is returned to the caller")
        else:
            where = self.code(parent) if parent is not None else "?"
            self.add(node, OPAQUE, f"it is used in `{where}`")

    def attribute(self, attribute: cst.Attribute) -> None:
        name = attribute.attr.value
        call = self.parents.get(attribute)
        if not (isinstance(call, cst.Call) and call.func is attribute):
            if name in _METADATA_ATTRIBUTES:
                self.add(attribute, READ, f"`.{name}` is read")
            elif name in torch_ops.VIEW_ATTRIBUTES:
                self.expression(attribute)
            else:
                self.add(attribute, OPAQUE, f"`.{name}` is read")
            return
        if name == "stride":
            self.stride_call(call)
        elif name in _METADATA_METHODS:
            self.add(call, READ, f"`.{name}()` is read")
        elif name in ("view", "view_as"):
            # semantics §1.1: `view` raises when it would merge a stride-0 dim
            self.add(call, DENSE, f"`{self.code(call)}` needs a dense layout")
        elif name in _LAYOUT_METHODS:
            self.add(call, OPAQUE, f"`.{name}()` observes its memory layout")
        elif name.endswith("_") and not name.startswith("_"):
            if name in torch_ops.INPLACE_EXCEPTIONS:
                self.add(call, OPAQUE, f"`.{name}()` is called on it")
            else:
                self.add(call, DENSE, f"`{self.code(call)}` writes into it in place")
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
            self.add(call, DENSE, f"`{self.code(call)}` writes into it as `out=`")
            return
        if call in self.flow.launches:
            kernel = self.code(call.func.value) if isinstance(call.func, cst.Subscript) else "?"
            if passes_strides(self.facts, call, node):
                self.add(call, STRIDED_LAUNCH, f"`{kernel}` receives it with its strides")
            else:
                self.add(call, DENSE, f"`{kernel}` receives it without its strides")
            return
        func = call.func
        qualified = self.facts.imports.resolve(func)
        if isinstance(func, cst.Attribute) and qualified is None:
            method = func.attr.value
            reads = method in _READING_METHODS or method.endswith("_") and method != "set_"
            kind, why = (READ, f"`.{method}()` reads it") if reads else (
                OPAQUE, f"it is passed to `.{method}()`"
            )
            self.add(call, kind, why)
        elif qualified in torch_ops.BROADCAST_FUNCTIONS:
            self.expression(call)  # `torch.broadcast_to(t, s)` is a view of it
        elif qualified in _READING_FUNCTIONS or (
            isinstance(func, cst.Name) and func.value in _READING_BUILTINS
        ):
            self.add(call, READ, f"`{self.code(func)}` reads it")
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
        self.add(element, OPAQUE, "it is stored in a container")

    def target(self, target: cst.BaseExpression, assign: cst.CSTNode) -> None:
        if not isinstance(target, cst.Name):
            self.add(target, OPAQUE, f"it is stored in `{self.code(target)}`")
            return
        statement = self.parents.get(assign)
        key = (target.value, assign)
        if key in self._followed:
            return
        self._followed.add(key)
        if _captured(self.flow.func, target.value):
            self.add(target, OPAQUE, f"a nested function captures `{target.value}`")
        for load in loads_after(self.facts, self.flow, target.value, statement):
            self.expression(load)


def _is_store_target(parents: dict[cst.CSTNode, cst.CSTNode], node: cst.CSTNode) -> bool:
    parent = parents.get(node)
    if isinstance(parent, cst.AssignTarget):
        return True
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
        return True
    return isinstance(parent, cst.Del)


def _captured(func: cst.FunctionDef, name: str) -> bool:
    for node in walk(func.body):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if any(isinstance(n, cst.Name) and n.value == name for n in walk(node)):
                return True
    return False


def loads_after(
    facts: ModuleFacts, flow: FunctionFlow, name: str, statement: cst.CSTNode | None
) -> list[cst.Name]:
    """The loads of `name` that may see the value bound in `statement`: every later load
    (every load of an enclosing loop), up to a later plain rebinding in the same block."""
    if statement is None:
        return []
    start = facts.span(statement)[1]
    loop = _outermost_loop(facts, flow.func, statement)
    loop_span = facts.span(loop) if loop is not None else None
    cut = None
    block = facts.parents.get(statement)
    if loop is None and isinstance(block, (cst.IndentedBlock, cst.Module)):
        siblings = list(block.body)
        index = next(i for i, s in enumerate(siblings) if s is statement)
        for later in siblings[index + 1 :]:
            if simple_assignment(later, name) is not None:
                cut = facts.span(later)[1]  # loads inside its value still see ours
                break
    found = []
    for load in flow.loads:
        if load.value != name:
            continue
        offset = facts.span(load)[0]
        if loop_span is not None and loop_span[0] <= offset < loop_span[1]:
            found.append(load)
        elif offset >= start and (cut is None or offset < cut):
            found.append(load)
    return found


def _outermost_loop(
    facts: ModuleFacts, func: cst.FunctionDef, node: cst.CSTNode
) -> cst.CSTNode | None:
    loop = None
    current = facts.parents.get(node)
    while current is not None and current is not func:
        if isinstance(current, (cst.For, cst.While)):
            loop = current
        current = facts.parents.get(current)
    return loop


def passes_strides(facts: ModuleFacts, launch: cst.Call, tensor: cst.BaseExpression) -> bool:
    """Whether a kernel launch also receives `tensor`'s strides (`*t.stride()`, `t.stride(0)`)."""
    code = facts.text_of(tensor)
    for arg in launch.args:
        value = arg.value
        while isinstance(value, cst.Subscript):
            value = value.value
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "stride"
            and facts.text_of(value.func.value) == code
        ):
            return True
    return False


# ---- what a name holds --------------------------------------------------------------------


def reaching_assignment(
    facts: ModuleFacts, name: cst.Name, statement: cst.CSTNode | None
) -> tuple[cst.Assign, cst.CSTNode, list[cst.CSTNode]] | None:
    """The plain `name = value` that `name`, loaded in `statement`, certainly reads; and the
    statements that may run between the two (a whole loop when one encloses the load but not
    the assignment). None when the last binding is anything else or is not certain."""
    between: list[cst.CSTNode] = []
    node = statement
    while node is not None:
        block = facts.parents.get(node)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return None
        siblings = list(block.body)
        index = next(i for i, s in enumerate(siblings) if s is node)
        for earlier in reversed(siblings[:index]):
            if name.value in assigned_names(earlier):
                assign = simple_assignment(earlier, name.value)
                return (assign, earlier, between) if assign is not None else None
            between.append(earlier)
        owner = facts.parents.get(block)
        while owner is not None and not (
            isinstance(owner, cst.BaseStatement)
            and isinstance(facts.parents.get(owner), (cst.IndentedBlock, cst.Module))
        ):
            owner = facts.parents.get(owner)
        if owner is None or isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
            return None
        if isinstance(owner, (cst.For, cst.While)):
            between.append(owner)  # a later statement of the loop runs before the next pass
        node = owner
    return None


def simple_assignment(statement: cst.CSTNode, name: str) -> cst.Assign | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == name
    ):
        return assign
    return None


# ---- the expand an operand comes from -----------------------------------------------------


@dataclass(frozen=True)
class ExpandSource:
    """A broadcast operand, seen as `<pre>` followed by an expand."""

    pre_node: cst.BaseExpression  # the tensor before the expand
    pre: str  # its code, parenthesized unless an atom
    suffix: str  # `.expand(b, h)`, `.broadcast_to(s)`, or `.expand_as(e)` for a name `e`
    call: cst.Call  # the expand
    name: str | None  # the name the operand loads, when it was bound to the expand earlier


def expand_parts(
    facts: ModuleFacts, call: cst.BaseExpression
) -> tuple[cst.BaseExpression, str] | None:
    """(tensor before the expand, the expand as a method suffix) for `x.expand(...)`,
    `x.expand_as(y)`, `x.broadcast_to(s)` and `torch.broadcast_to(x, s)`."""
    if not isinstance(call, cst.Call):
        return None
    func = call.func
    qualified = facts.imports.resolve(func)
    if (
        isinstance(func, cst.Attribute)
        and qualified is None
        and func.attr.value in torch_ops.BROADCAST_METHODS
        and not any(a.keyword is not None and a.keyword.value != "size" for a in call.args)
    ):
        arguments = facts.text_of(call)[facts.span(func)[1] - facts.span(call)[0] :].lstrip()
        return func.value, f".{func.attr.value}{arguments}"
    if qualified in torch_ops.BROADCAST_FUNCTIONS:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) == 2 and len(call.args) == 2:
            return positional[0].value, f".expand({facts.text_of(positional[1].value)})"
    return None


def expand_source(
    facts: ModuleFacts, operand: cst.BaseExpression, statement: cst.CSTNode | None
) -> ExpandSource | None:
    """How to write `operand` as `<pre>.expand(...)` at `statement`: an inline expand, or a
    name bound to one earlier whose pre-expand expression still means the same there (its
    names are not rebound or written in between, and re-evaluating it has no effects)."""
    parts = expand_parts(facts, operand)
    if parts is not None:
        pre, suffix = parts
        return ExpandSource(pre, operand_code(facts, pre), suffix, operand, None)
    if not isinstance(operand, cst.Name):
        return None
    found = reaching_assignment(facts, operand, statement)
    if found is None:
        return None
    assign, _, between = found
    parts = expand_parts(facts, assign.value)
    if parts is None:
        return None
    pre, _ = parts
    names = {n.value for n in walk(pre) if isinstance(n, cst.Name)}
    if operand.value in names or not is_pure(facts, pre):
        return None  # `m = m[:, None].expand(...)`: `m[:, None]` now means something else
    if any(may_change(facts, s, names | {operand.value}) for s in between):
        return None
    if _bound_around(facts, operand, statement) & names:
        return None  # `[1.0 - e for x in xs]`: `x` is the loop's own there
    return ExpandSource(
        pre, operand_code(facts, pre), f".expand_as({operand.value})", assign.value, operand.value
    )


def _bound_around(facts: ModuleFacts, node: cst.CSTNode, statement: cst.CSTNode | None) -> set[str]:
    """Names that comprehensions, lambdas and `:=` between node and its statement bind."""
    bound: set[str] = set()
    current = facts.parents.get(node)
    while current is not None and current is not statement:
        if isinstance(current, cst.CompFor):
            bound |= {n.value for n in walk(current.target) if isinstance(n, cst.Name)}
        elif isinstance(current, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            bound |= {n.value for n in walk(current.for_in) if isinstance(n, cst.Name)}
        elif isinstance(current, cst.Lambda):
            bound |= {p.name.value for p in current.params.params}
        current = facts.parents.get(current)
    if statement is not None:
        bound |= {n.target.value for n in walk(statement)
                  if isinstance(n, cst.NamedExpr) and isinstance(n.target, cst.Name)}
    return bound


def operand_code(facts: ModuleFacts, node: cst.BaseExpression, *, loose: bool = False) -> str:
    """The code of node, parenthesized unless it is an atom or already in parentheses; in a
    `loose` place (an argument), without its own parentheses when it fits on one line."""
    start, end = outer_span(facts, node)
    text = facts.source.text[start:end]
    if loose and node.lpar:
        inner = facts.text_of(node)
        return inner if "\n" not in inner else text
    if node.lpar or isinstance(node, _PRIMARY) or loose:
        return text
    return f"({text})"


_PRIMARY = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
    cst.SimpleString, cst.ConcatenatedString, cst.Tuple, cst.List,
)  # fmt: skip


def outer_span(facts: ModuleFacts, node: cst.BaseExpression) -> tuple[int, int]:
    """The span of node with its own parentheses."""
    if node.lpar and node.rpar:
        return facts.span(node.lpar[0])[0], facts.span(node.rpar[-1])[1]
    return facts.span(node)


# ---- purity -------------------------------------------------------------------------------

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
                or qualified in ("torch.finfo", "torch.iinfo", "torch.broadcast_shapes")
                or qualified.startswith("math.")
            ):
                return False
            if any(a.keyword is not None and a.keyword.value == "out" for a in inner.args):
                return False
    return True


def may_change(facts: ModuleFacts, statement: cst.CSTNode, names: set[str]) -> bool:
    """Whether statement may rebind one of names or write into what one of them holds."""
    if assigned_names(statement) & names:
        return True
    for node in walk(statement):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.Del)):
            target = node.target
            if not isinstance(target, cst.Name) and root_name(target) in names:
                return True  # `mask[0] = 1`, `self.mask = m`
        elif isinstance(node, cst.Call) and _call_may_write(facts, node, names):
            return True
    return False


def _call_may_write(facts: ModuleFacts, call: cst.Call, names: set[str]) -> bool:
    passed = any(root_name(a.value) in names for a in call.args)
    func = call.func
    qualified = facts.imports.resolve(func)
    if isinstance(func, cst.Attribute) and qualified is None:
        method = func.attr.value
        if root_name(func.value) in names:
            if method.endswith("_") and method not in torch_ops.INPLACE_EXCEPTIONS:
                return True
            if method not in _PURE_METHODS and method not in _METADATA_METHODS:
                return True
        if passed:
            return not (method.endswith("_") and method != "set_" or method in _PURE_METHODS)
        return False
    if not passed:
        return False
    if qualified is not None and qualified.startswith("torch."):
        return qualified.endswith("_") or any(
            a.keyword is not None and a.keyword.value == "out" for a in call.args
        )
    if isinstance(func, cst.Name) and func.value in _PURE_BUILTINS | _READING_BUILTINS:
        return False
    return True  # a module function, an import or a kernel launch may write into it


def root_name(node: cst.BaseExpression) -> str | None:
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None


# ---- which dims an expand makes stride 0 --------------------------------------------------


@dataclass(frozen=True)
class ExpandedDims:
    """What the code says about the dims of `x.expand(s0, s1, ...)`."""

    sizes: tuple[str, ...]  # the code of each size
    broadcast: frozenset[int]  # size-1 dims inserted by `[:, None]`/`unsqueeze` and grown
    kept: frozenset[int]  # dims that keep the source's own stride (`-1`, or a `:` entry)
    unit: frozenset[int]  # dims expanded to a literal size 1

    @property
    def candidates(self) -> frozenset[int]:
        """The dims the expand may make stride 0: all but the kept and the size-1 ones."""
        return frozenset(range(len(self.sizes))) - self.kept - self.unit


def expanded_dims(facts: ModuleFacts, call: cst.BaseExpression) -> ExpandedDims | None:
    """Read the dims of a literal expand. `x[:, None].expand(b, n, s)` broadcasts dim 1. The
    entries of the subscript are lined up with the first sizes (the last ones after an
    `...`), as they are whenever the expand adds no leading dims."""
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "expand"
        and facts.imports.resolve(call.func) is None
    ):
        return None
    sizes = [a.value for a in call.args]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        sizes = [e.value for e in sizes[0].elements]
    elif len(sizes) == 1 and literal_int(sizes[0]) is None:
        return None  # `x.expand(shape)` or `x.expand(n)`: the code does not say which
    if not sizes or any(a.star or a.keyword for a in call.args) or any(
        isinstance(s, cst.StarredElement) for s in sizes
    ):
        return None
    count = len(sizes)
    kept = {i for i, s in enumerate(sizes) if literal_int(s) == -1}
    unit = {i for i, s in enumerate(sizes) if literal_int(s) == 1}
    inserted: set[int] = set()
    source = call.func.value
    if isinstance(source, cst.Subscript):
        entries = [e.slice for e in source.slice]
        kinds = [_entry_kind(e) for e in entries]
        if "other" in kinds:
            texts = tuple(facts.text_of(s) for s in sizes)
            return ExpandedDims(texts, frozenset(), frozenset(kept), frozenset(unit))
        placed = [k for k in kinds if k != "int"]  # an integer index removes a source dim
        if "ellipsis" in placed:
            cut = placed.index("ellipsis")
            before, after = placed[:cut], placed[cut + 1 :]
            positions = list(enumerate(before)) + [
                (count - len(after) + i, k) for i, k in enumerate(after)
            ]
            kept |= set(range(len(before), count - len(after)))  # the source's dims, via `...`
        else:
            positions = list(enumerate(placed))
            kept |= set(range(len(placed), count))  # the source's trailing dims
        for position, kind in positions:
            if not 0 <= position < count:
                return None
            if kind == "none":
                inserted.add(position)
            elif kind == "slice":
                kept.add(position)
    elif (
        isinstance(source, cst.Call)
        and isinstance(source.func, cst.Attribute)
        and source.func.attr.value == "unsqueeze"
        and len(source.args) == 1
        and literal_int(source.args[0].value) is not None
    ):
        dim = literal_int(source.args[0].value)
        if not -count <= dim < count:
            return None
        inserted.add(dim % count)
    broadcast = frozenset(d for d in inserted if d not in kept and d not in unit)
    texts = tuple(facts.text_of(s) for s in sizes)
    dims = ExpandedDims(texts, broadcast, frozenset(kept - broadcast), frozenset(unit))
    if not broadcast and len(dims.candidates) == 1:
        # `row.expand(n, -1)`: the expand broadcasts something, and only dim 0 can be it
        dims = ExpandedDims(dims.sizes, dims.candidates, dims.kept, dims.unit)
    return dims


def _entry_kind(entry: cst.BaseSlice) -> str:
    if isinstance(entry, cst.Slice):
        bare = entry.lower is None and entry.upper is None and entry.step is None
        return "slice" if bare else "other"
    value = entry.value
    if isinstance(value, cst.Ellipsis):
        return "ellipsis"
    if isinstance(value, cst.Name) and value.value == "None":
        return "none"
    if literal_int(value) is not None:
        return "int"
    return "other"


def literal_int(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.evaluated_value)
    return None


def dims_of(
    facts: ModuleFacts, operand: cst.BaseExpression, statement: cst.CSTNode | None
) -> ExpandedDims | None:
    """`expanded_dims` of an inline expand, or of the expand a name was bound to."""
    if isinstance(operand, cst.Name):
        found = reaching_assignment(facts, operand, statement)
        return expanded_dims(facts, found[0].value) if found is not None else None
    return expanded_dims(facts, operand)


# ---- the rewrites -------------------------------------------------------------------------


def hoist(
    facts: ModuleFacts,
    node: cst.BaseExpression,
    sources: list[tuple[cst.BaseExpression, ExpandSource]],
) -> Edit | None:
    """Rewrite node (an op on the broadcast operands) as the op on the pre-expand tensors,
    expanded: `x.expand(s).to(t)` -> `x.to(t).expand(s)`; `1.0 - e` -> `(1.0 - x).expand_as(e)`."""
    suffixes = {source.suffix for _, source in sources}
    if len(suffixes) == 1:
        suffix = suffixes.pop()
    elif all(source.name for _, source in sources):
        torch = facts.imports.local_name_for("torch")
        if torch is None:
            return None
        shapes = ", ".join(dict.fromkeys(f"{source.name}.shape" for _, source in sources))
        suffix = f".expand({torch}.broadcast_shapes({shapes}))"
    else:
        return None  # expands to sizes we cannot show are equal
    start, end = outer_span(facts, node)
    replaced = [
        (outer_span(facts, operand), _code_at(facts, operand, source))
        for operand, source in sources
    ]
    pieces, cursor = [], start
    for (operand_start, operand_end), pre in sorted(replaced):
        if operand_start < cursor:
            return None
        pieces += [facts.source.text[cursor:operand_start], pre]
        cursor = operand_end
    pieces.append(facts.source.text[cursor:end])
    text = "".join(pieces)
    if not (node.lpar or isinstance(node, (cst.Call, cst.Attribute, cst.Subscript))):
        text = f"({text})"
    return facts.source.edit(start, end, text + suffix)


def _code_at(facts: ModuleFacts, operand: cst.BaseExpression, source: ExpandSource) -> str:
    loose = isinstance(facts.parents.get(operand), (cst.Arg, cst.Element, cst.Index))
    return operand_code(facts, source.pre_node, loose=loose)


def drop_call(facts: ModuleFacts, call: cst.Call) -> Edit | None:
    """Replace `receiver.method(...)` by `receiver`; a statement left as `x = x` goes away."""
    if not isinstance(call.func, cst.Attribute):
        return None
    receiver = call.func.value
    statement = facts.parents.get(facts.parents.get(call))
    assign = facts.parents.get(call)
    if (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and facts.text_of(assign.targets[0].target) == facts.text_of(receiver)
    ):
        return _delete_line(facts, statement)
    start, end = outer_span(facts, call)
    text = operand_code(facts, receiver)
    if call.lpar:
        text = f"({text})"
    return facts.source.edit(start, end, text)


def _delete_line(facts: ModuleFacts, statement: cst.SimpleStatementLine) -> Edit | None:
    if statement.trailing_whitespace.comment is not None:
        return None  # keep the comment's line rather than guess where it belongs
    source = facts.source
    start, end = facts.span(statement)
    first, last = source.line_of(start), source.line_of(max(start, end - 1))
    if source.text[source.line_starts[first - 1] : start].strip():
        return None
    line_end = source.line_starts[last] if last < len(source.line_starts) else len(source.text)
    return source.edit(source.line_starts[first - 1], line_end, "")


def fix(applicability: Applicability, message: str, edit: Edit | None) -> Fix | None:
    return Fix(applicability, message, (edit,)) if edit is not None else None
