"""Forward broadcast analysis of one function body.

Walks the statements in order, keeping for each local name the abstract value it holds
(values.py), through assignments, aliases, tuple unpacking, rebinding, branches (joined)
and loops (run twice, joined). Along the way it records the facts rules read: every op that
materializes a broadcast tensor (a Sink) and the reductions its result flows into, every
reduction applied straight to a broadcast tensor, the calls and kernel launches that pass
broadcast tensors on, and the value every name load saw.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import cached_property, reduce
from typing import TYPE_CHECKING, Callable, Sequence

import libcst as cst

from stridelint.analysis import provenance, torch_ops
from stridelint.analysis import dtypes
from stridelint.analysis import einops_patterns, per_token
from stridelint.analysis import evidence as param_evidence
from stridelint.analysis.bindings import assigned_name, reaching_assignment
from stridelint.analysis.dtypes import names_integer_dtype
from stridelint.analysis.literals import OTHER, RANGE, index_kind, is_none, literal_int
from stridelint.analysis.names import dotted
from stridelint.analysis.node_evidence import NodeEvidence
from stridelint.analysis.purity import writes_in_place
from stridelint.analysis.scopes import function_scope
from stridelint.analysis.strides import is_stride_call
from stridelint.analysis.tree import children, descendants
from stridelint.analysis.weights import holds_parameter
from stridelint.analysis.values import (
    Broadcast,
    Dense,
    Derived,
    Group,
    KernelHandle,
    ModuleRef,
    Narrowed,
    NoTensor,
    Scalar,
    Sink,
    State,
    Value,
    join,
    join_envs,
    repeated_parts,
)

if TYPE_CHECKING:
    from stridelint.analysis.module import ModuleFacts

@dataclass(frozen=True)
class BroadcastReduction:
    """A reduction applied straight to a broadcast tensor (SL102). `selection`: work on what a
    broadcast bool mask (`operand`) selects from another tensor, which finds every selected
    element over the mask's logical size: "count" (`x[mask].numel()`, `call` the count) or
    "update" (`x[mask] += v`, `call` the statement, which finds them twice)."""

    call: cst.CSTNode
    operand: cst.BaseExpression
    value: Broadcast
    statement: cst.CSTNode | None
    selection: str | None = None


@dataclass(frozen=True)
class ConcatenatedOp:
    """An elementwise op or cast on a concatenation of broadcasts alone (`Dense.concatenated`),
    with numbers at most: it runs at the concatenation's full size (SL201, no fix)."""

    node: cst.BaseExpression
    operand: cst.BaseExpression
    value: Broadcast  # the parts' broadcasts, joined
    statement: cst.CSTNode | None
    kind: str


# An expand that repeats its source at most this many times along literal dims is small.
FEW_REPEATS = 4
# An expand whose every broadcast position holds a matrix of at most this many numbers, spelled
# as literal trailing dims (a 4 x 4 camera matrix, 3 x 3 intrinsics), copies a transform per
# position: metadata beside the data it maps, small.
FEW_NUMBERS = 16


@dataclass(frozen=True)
class Write:
    """A write into a broadcast tensor (SL401): `kind` is "inplace" (a `*_` method), "setitem",
    "augassign" or "out" (an `out=` argument)."""

    node: cst.CSTNode
    target: cst.BaseExpression
    kind: str
    method: str | None
    value: Broadcast
    statement: cst.CSTNode | None


@dataclass(frozen=True)
class LayoutOp:
    """`reshape`/`flatten`/`view` of a broadcast tensor, or a `torch.*_like` of one (SL301):
    a copy of the logical size whenever a stride-0 dim is merged (semantics §1.1)."""

    call: cst.Call
    operand: cst.BaseExpression
    name: str
    value: Broadcast
    statement: cst.CSTNode | None
    merged: str | None = None  # the merge, when the call itself says it (`einops.repeat`)


@dataclass(frozen=True)
class PerTokenCall:
    """A module run on one number or one row copied per token (`Broadcast.per_token`, SL201):
    it computes one identical output row per copy."""

    call: cst.Call
    operand: cst.BaseExpression
    value: Broadcast  # the copy, the parts of a concatenation of copies, or what was filled
    statement: cst.CSTNode | None
    form: str = per_token.COPY  # or per_token.CONCATENATION, per_token.FILL


@dataclass(frozen=True)
class CallSite:
    """A call passing values on: to a module function (`callee`) or a kernel launch (`kernels`:
    every kernel the launched object may be). Each argument is (key, expr, value): key is the
    position, the keyword, or None for a positional argument after a `*splat`, whose position
    cannot be known."""

    call: cst.Call
    callee: str
    arguments: tuple[tuple[int | str | None, cst.BaseExpression, Value], ...]
    kernels: tuple[str, ...] = ()


@dataclass
class FunctionFlow:
    func: cst.FunctionDef
    facts: ModuleFacts
    initial_env: dict[str, Value]
    hook_arguments: dict[str, Broadcast] = field(default_factory=dict)  # args["Mask"] facts
    hook_args_name: str | None = None  # the name of a launch-metadata hook's `args` parameter
    # What each module function returns when it returns a broadcast it makes (module.py's
    # return summaries): the value a call of it gives here.
    return_facts: dict[str, Broadcast | Dense] = field(default_factory=dict)

    sinks: dict[cst.CSTNode, Sink] = field(init=False, default_factory=dict)
    broadcast_reductions: dict[cst.CSTNode, BroadcastReduction] = field(
        init=False, default_factory=dict
    )
    concatenated_ops: dict[cst.CSTNode, ConcatenatedOp] = field(init=False, default_factory=dict)
    loads: dict[cst.Name, Value] = field(init=False, default_factory=dict)
    calls: dict[cst.Call, CallSite] = field(init=False, default_factory=dict)
    launches: dict[cst.Call, CallSite] = field(init=False, default_factory=dict)
    returns: list[tuple[cst.Return, Value]] = field(init=False, default_factory=list)
    writes: dict[cst.CSTNode, Write] = field(init=False, default_factory=dict)
    layout_ops: dict[cst.Call, LayoutOp] = field(init=False, default_factory=dict)
    per_token_calls: dict[cst.Call, PerTokenCall] = field(init=False, default_factory=dict)
    env: dict[str, Value] = field(init=False, default_factory=dict)
    # Each lambda defined here: the env where it was made and the statement that makes it
    # (module.py analyses its body as a flow of its own, analysis/outer_flows.py).
    lambdas: dict[cst.Lambda, tuple[dict[str, Value], cst.CSTNode | None]] = field(
        init=False, default_factory=dict
    )
    _statement: cst.CSTNode | None = field(init=False, default=None)
    # Per flag parameter: name -> (value after the `if flag:`, value when the flag holds, when
    # not), for names a branch on the flag rebinds (see _assume).
    _branch_values: dict[str, dict[str, tuple[Value, Value, Value]]] = field(
        init=False, default_factory=dict
    )
    _values: dict[cst.CSTNode, Value] = field(init=False, default_factory=dict)  # last value seen

    @property
    def name(self) -> str:
        """The flow's own name: the function's (`<module>`, `<lambda>` for the others)."""
        return self.func.name.value

    @property
    def caller(self) -> str:
        """The function whose scope this code runs in, for wrapper scope and call facts."""
        return self.name

    def value_of(self, node: cst.BaseExpression) -> Value:
        """The value the analysis gave `node` (the last one, after loops), or None."""
        return self._values.get(node)

    def run(self) -> FunctionFlow:
        self.env = dict(self.initial_env)
        self._block(self.func.body)
        return self

    @cached_property
    def _owner(self) -> tuple[str, str] | None:
        """(the module-level class this is a method of, the name it calls its instance by)."""
        owner = self.facts.classes.owner.get(self.func)
        self_name = self.facts.classes.self_name(self.func) if owner is not None else None
        return (owner, self_name) if owner is not None and self_name is not None else None

    def _on_self(self, node: cst.Attribute) -> str | None:
        """The class whose instance `node`'s receiver is (`self.x` in a method), else None."""
        owner = self._owner
        if owner is None or not isinstance(node.value, cst.Name) or node.value.value != owner[1]:
            return None
        return owner[0]

    def _method_call(self, func: cst.Attribute) -> str | None:
        """`self.helper(...)` or a submodule's `self.norm(...)`: the key of the method it runs."""
        owner = self._on_self(func)
        if owner is None:
            return None
        key = self.facts.classes.method(owner, func.attr.value)
        if key is None:
            found = self.facts.classes.submodule(owner, func.attr.value)
            key = found[0] if found is not None and not found[1] else None
        return key

    # ---- statements -------------------------------------------------------------------

    def _block(self, block: cst.BaseSuite | cst.BaseStatement) -> None:
        if isinstance(block, cst.SimpleStatementSuite):
            self._statement = block
            for small in block.body:
                self._small(small)
            return
        body = block.body if isinstance(block, cst.IndentedBlock) else [block]
        for statement in body:
            self._compound_or_line(statement)

    def _compound_or_line(self, statement: cst.BaseStatement) -> None:
        self._statement = statement
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small)
        elif isinstance(statement, cst.If):
            self._if(statement)
        elif isinstance(statement, (cst.For, cst.While)):
            self._loop(statement)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                self.ev(item.item)
                if item.asname is not None:
                    self._bind(item.asname.name, None)
            self._block(statement.body)
        elif isinstance(statement, cst.Try):
            self._try(statement)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            self.env.pop(statement.name.value, None)  # analysed on their own
        elif isinstance(statement, cst.Match):
            self.ev(statement.subject)
            before = dict(self.env)
            merged = dict(before)
            for case in statement.cases:
                self.env = dict(before)
                self._block(case.body)
                merged = join_envs(merged, self.env)
            self.env = merged

    def _if(self, statement: cst.If) -> None:
        self.ev(statement.test)
        flag = self._flag_test(statement.test)
        ranked = self._rank_test(statement.test)
        before = dict(self.env)
        self._assume(flag, True)
        self._rule_out(ranked, True)
        self._block(statement.body)
        after_body = self.env
        self.env = dict(before)
        self._assume(flag, False)
        self._rule_out(ranked, False)
        if isinstance(statement.orelse, cst.If):
            self._statement = statement.orelse
            self._if(statement.orelse)
        elif isinstance(statement.orelse, cst.Else):
            self._block(statement.orelse.body)
        after_else = self.env
        self.env = join_envs(after_body, after_else)
        self._keep_branch_only_names(after_body, after_else, statement.body)
        if statement.orelse is not None:
            self._keep_branch_only_names(after_else, after_body, statement.orelse)
        self._remember_branches(flag, after_body, after_else)

    def _rule_out(self, ranked: tuple[str, bool] | None, branch: bool) -> None:
        """In the branch a rank test sends the tensor away from, the name holds some other
        tensor (another caller's), never this one: an op there sees no broadcast, and the join
        after keeps the branch it took."""
        if ranked is not None and ranked[1] is not branch:
            self.env[ranked[0]] = NoTensor()

    def _rank_test(self, test: cst.BaseExpression) -> tuple[str, bool] | None:
        """(name, whether the test holds) for `t.ndim == 4` (`t.dim() != 2`, `len(t.shape) ==
        3`) where `t`'s rank is known (`Broadcast.rank`: a caller passes
        `p.view(b, 6, 1, -1).expand(b, 6, n, -1)`); None when the test asks anything else."""
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return None
        target = test.comparisons[0]
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return None
        count = literal_int(target.comparator)
        tensor = _rank_of(test.left)
        if count is None or tensor is None:
            return None
        value = repeated_parts(self.env.get(tensor.value))
        if value is None or value.rank is None:
            return None
        return tensor.value, (value.rank == count) is isinstance(target.operator, cst.Equal)

    def _keep_branch_only_names(
        self, branch: dict[str, Value], other: dict[str, Value], block: cst.CSTNode
    ) -> None:
        """A tensor name that only `block` binds keeps the value `block` gave it: on a path
        that skips `block` it is unbound, and reading it there raises (or, in a loop, it still
        holds what `block` gave it before). `if hist: p0 = a.expand(...)` ... `if hist:
        p = torch.cat([p0, p])` sees a definite broadcast."""
        for name, value in branch.items():
            if name in other or repeated_parts(value) is None:
                continue
            if self._bound_only_in(name, block):
                self.env[name] = value

    def _bound_only_in(self, name: str, block: cst.CSTNode) -> bool:
        if not isinstance(self.func, cst.FunctionDef):
            return False  # the module's flow: other modules may bind its names
        scope = self.facts.scopes.scope_of_function(self.func)
        bindings = scope.bindings.get(name)
        if not bindings or name in scope.global_names or name in scope.nonlocal_names:
            return False
        start, end = self.facts.span(block)
        for binding in bindings:
            if binding.kind in ("param", "del"):
                return False
            inner_start, inner_end = self.facts.span(binding.node)
            if not start <= inner_start <= inner_end <= end:
                return False
        return True

    # ---- branches on a flag parameter ---------------------------------------------------
    # `if reset_ids: ids = ids.clone()` ... `if reset_ids: ids[b, i:] -= k`: a later test of
    # the same flag parameter takes the same branch, so the names it guards keep the value
    # that branch gave them, not the join of both (a path the code cannot take).

    def _flag_test(self, test: cst.BaseExpression) -> tuple[str, bool] | None:
        """(flag, truth of the flag when the test holds) for `if flag:` / `if not flag:`,
        where `flag` is a parameter the function never rebinds."""
        truth = True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, truth = test.expression, not truth
        if not isinstance(test, cst.Name) or test.value not in self._parameter_names:
            return None  # no parameter: no flag, and no scope table built to say so
        if test.value not in self._flag_parameters:
            return None
        return test.value, truth

    @cached_property
    def _parameter_names(self) -> frozenset[str]:
        if not isinstance(self.func, cst.FunctionDef):
            return frozenset()  # the module's own flow, a lambda's
        return frozenset(p.name.value for p in param_evidence.parameters(self.func))

    @cached_property
    def _flag_parameters(self) -> frozenset[str]:
        """Parameters bound nowhere else in the function (their truth never changes)."""
        names = self._parameter_names
        if not names:
            return frozenset()
        scope = function_scope(self.func)
        if names & (scope.global_names | scope.nonlocal_names):
            scope = self.facts.scopes.scope_of_function(self.func)
        return frozenset(
            name for name in names
            if [b.kind for b in scope.bindings.get(name, [])] == ["param"]
        )  # fmt: skip

    def _remember_branches(
        self,
        flag: tuple[str, bool] | None,
        when_true: dict[str, Value],
        when_false: dict[str, Value],
    ) -> None:
        if flag is None:
            return
        name, truth = flag
        if not truth:
            when_true, when_false = when_false, when_true
        facts = self._branch_values.setdefault(name, {})
        for variable in when_true.keys() | when_false.keys():
            if when_true.get(variable) != when_false.get(variable):
                facts[variable] = (self.env.get(variable), when_true.get(variable), when_false.get(variable))

    def _assume(self, flag: tuple[str, bool] | None, holds: bool) -> None:
        """Give each name a branch on the flag set the value that branch gave it, unless it
        was rebound since (its value is no longer the join the branches made)."""
        if flag is None:
            return
        name, truth = flag
        for variable, (joined, when_true, when_false) in self._branch_values.get(name, {}).items():
            if self.env.get(variable) != joined:
                continue
            value = when_true if holds == truth else when_false
            if value is None:
                self.env.pop(variable, None)
            else:
                self.env[variable] = value

    def _loop(self, statement: cst.For | cst.While) -> None:
        header = statement.iter if isinstance(statement, cst.For) else statement.test
        before = dict(self.env)
        for _ in range(2):  # the second pass sees values that flow around the back edge
            self._statement = statement
            iterated = self.ev(header)
            if isinstance(statement, cst.For):
                self._bind_loop_target(statement.target, header, iterated)
            self._block(statement.body)
            self.env = join_envs(before, self.env)
        if statement.orelse is not None:
            self._block(statement.orelse.body)

    def _bind_loop_target(
        self, target: cst.BaseAssignTargetExpression, header: cst.BaseExpression, iterated: Value
    ) -> None:
        """A `range` gives numbers; a ModuleList gives its modules, also through `enumerate`
        (`for i, block in enumerate(self.blocks)`)."""
        if _is_range(header):
            self._bind(target, Scalar())
            return
        if (
            isinstance(header, cst.Call)
            and dotted(header.func) == "enumerate"
            and len(header.args) == 1
            and isinstance(target, cst.Tuple)
            and len(target.elements) == 2
        ):
            listed = self._values.get(header.args[0].value)
            if isinstance(listed, ModuleRef) and listed.many:
                self._bind(target.elements[0].value, Scalar())
                self._bind(target.elements[1].value, ModuleRef(listed.callee))
                return
        many = isinstance(iterated, ModuleRef) and iterated.many
        self._bind(target, ModuleRef(iterated.callee) if many else None)  # type: ignore[union-attr]

    def _try(self, statement: cst.Try) -> None:
        before = dict(self.env)
        self._block(statement.body)
        merged = join_envs(before, self.env)
        after = merged
        for handler in statement.handlers:
            self.env = dict(merged)
            if handler.name is not None:
                self._bind(handler.name.name, None)
            self._block(handler.body)
            after = join_envs(after, self.env)
        self.env = after
        if statement.orelse is not None:
            self._block(statement.orelse.body)
        if statement.finalbody is not None:
            self._block(statement.finalbody.body)

    def _small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Assign):
            value = self.ev(small.value)
            for target in small.targets:
                self._bind_assignment(target.target, value, small.value)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                value = self.ev(small.value)
                if value is None:
                    value = self._annotated_broadcast(small)
                self._bind_assignment(small.target, value, small.value)
        elif isinstance(small, cst.AugAssign):
            self.ev(small.value)
            if isinstance(small.target, cst.Name):
                current = self.ev(small.target)
                if isinstance(current, Broadcast):  # in place on a tensor (semantics §1.3)
                    self._write(small, small.target, "augassign", None, current)
                elif not isinstance(current, Derived):
                    self._bind(small.target, None)
            else:
                self._store(small.target, small)
                if isinstance(small.target, cst.Subscript):
                    self._selection(small, small.target, "update")
        elif isinstance(small, cst.Expr):
            self.ev(small.value)
        elif isinstance(small, cst.Return):
            value = self.ev(small.value) if small.value is not None else None
            self.returns.append((small, value))
        elif isinstance(small, cst.Del):
            self._delete(small.target)
        elif isinstance(small, (cst.Assert, cst.Raise)):
            for child in children(small):
                if isinstance(child, cst.BaseExpression):
                    self.ev(child)
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            if not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    bound = alias.asname.name if alias.asname else alias.name
                    if isinstance(bound, cst.Name):
                        self.env.pop(bound.value, None)

    def _annotated_broadcast(self, small: cst.AnnAssign) -> Value:
        """`mask: Bool[Tensor, "#b n"] = load()`: an unknown value whose annotation marks a
        broadcastable dim is possibly broadcast."""
        if not isinstance(small.target, cst.Name):
            return None
        found = param_evidence.annotation_evidence(
            small.annotation, small.target.value, self.facts.evidence_at
        )
        return Broadcast(State.POSSIBLE, (found,)) if found is not None else None

    def _delete(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.env.pop(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._delete(element.value)

    def _bind_assignment(
        self, target: cst.BaseExpression, value: Value, rhs: cst.BaseExpression
    ) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            if self._resolves_to(rhs, torch_ops.BROADCAST_TUPLE_FUNCTIONS):
                source = self.facts.imports.resolve(rhs.func)  # type: ignore[attr-defined]
                evidence = self.facts.evidence_at(rhs, f"it comes from `{source}`")
                meshgrid = source == "torch.meshgrid"
                # A meshgrid or broadcast of index vectors only is a coordinate grid.
                grid = self._meshes_index_vectors(rhs)  # type: ignore[arg-type]
                grouped = self._groups_its_outputs(rhs, target)  # type: ignore[arg-type]
                for member, element in enumerate(elements):
                    # A meshgrid of other vectors stays unknown: its outputs vary along
                    # different dims (`x <= y` is a whole mask), which the values do not record.
                    group = Group(rhs, member, len(elements)) if grouped else None  # type: ignore[arg-type]
                    value = Broadcast(State.DEFINITE, (evidence,), True, grid=grid, group=group)
                    self._bind(element, None if meshgrid and not grid else value)
            elif isinstance(rhs, (cst.Tuple, cst.List)) and len(rhs.elements) == len(elements):
                for element, source in zip(elements, rhs.elements):
                    self._bind(element, self._values.get(source.value))
            else:
                for element in elements:
                    self._bind(element, None)
        else:
            self._bind(target, value)

    def _groups_its_outputs(self, call: cst.Call, target: cst.Tuple | cst.List) -> bool:
        """Whether the outputs bound to `target` are a whole group (`Group`): one name for
        each, and no input that was broadcast already (its stride-0 dims may be the others'
        too, so an op over all outputs can still repeat values)."""
        if any(isinstance(e, cst.StarredElement) for e in target.elements) or any(
            arg.star for arg in call.args
        ):
            return False
        return not any(isinstance(self._values.get(arg.value), Broadcast) for arg in call.args)

    def _joins_positions(self, call: cst.Call) -> bool:
        """`torch.cat([grid_x[..., None], grid_y[..., None]], -1)`: a join of coordinate grids
        or index vectors only is coordinates too."""
        elements = _join_elements(call)
        if not elements:
            return False
        values = [self._values.get(element.value) for element in elements]
        return all(
            isinstance(v, Dense) and v.index or isinstance(v, Broadcast) and v.grid for v in values
        )

    def _concatenated_broadcasts(self, call: cst.Call) -> Broadcast | None:
        """`torch.cat([t.view(f, 1, 1, -1).expand(f, h, w, -1), s.view(1, h, 1, -1).expand(f,
        h, w, -1)], dim=-1)`, or one part per sample (`torch.cat([e[i, None].expand(1, n, -1)
        for i in range(b)], 1)`): each part a definite broadcast, a concatenation of them, or
        a tensor of one value (padding: `torch.zeros(...)`); their broadcasts joined
        (`Dense.concatenated`), else None."""
        joined = call.args[0].value if call.args and call.args[0].keyword is None else None
        listed = _join_elements(call)
        if isinstance(joined, (cst.ListComp, cst.GeneratorExp)):
            elements = [joined.elt]
        elif listed is not None and len(listed) >= 2:
            if any(isinstance(element, cst.StarredElement) for element in listed):
                return None
            elements = [element.value for element in listed]
            if self._duplicates_a_concatenation(elements):
                return None
        else:
            return None
        parts: list[Broadcast] = []
        for element in elements:
            value = self._values.get(element)
            if isinstance(value, Dense) and value.concatenated is not None:
                parts.append(value.concatenated)
            elif isinstance(value, Broadcast) and value.state is State.DEFINITE:
                if value.group is not None:
                    return None  # broadcast_tensors' outputs are dense where their inputs differ
                parts.append(value)
            elif not self._fills_one_value(element):
                return None
        if not parts:
            return None
        merged = reduce(join, parts)
        # `torch.cat` keeps its parts' rank (every part has it); `torch.stack` adds a dim
        stacked = self.facts.imports.resolve(call.func) == "torch.stack"
        rank = None if stacked else merged.rank
        return replace(merged, group=None, leading=None, rank=rank)  # type: ignore[arg-type]

    def _numbers_per_token(self, node: cst.BaseExpression) -> bool:
        """Whether `node` is an expand, or a name bound to one, that copies each number of a
        grid once per token (`per_token.repeats_numbers_per_token`)."""
        if isinstance(node, cst.Name):
            found = reaching_assignment(self.facts, node, self._statement)
            node = found[0].value if found is not None else node
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return False
        if node.func.attr.value != "expand":
            return False
        dims = provenance.expanded_dims(self.facts, node)
        return dims is not None and per_token.repeats_numbers_per_token(dims)

    def _joined_copies(self, call: cst.Call) -> Dense | None:
        """`torch.cat([cos, sin], dim=-1)` of tensors whose rows repeat per token, each
        (`Dense.copied`); or numbers copied per token, which have no dim of features, joined
        with other tensors (`torch.cat([t_per_token, t_action], dim=1)`): the copied part
        still repeats. Rows joined with other tensors, maybe along their features, may not."""
        elements = _join_elements(call)
        if elements is None or len(elements) < 2:
            return None
        values = [self._values.get(element.value) for element in elements]
        copies = [v for v in values if isinstance(v, Dense) and v.copied is not None]
        if not copies or len(copies) < len(values) and any(v.rows for v in copies):
            return None
        return _copies_joined(copies)

    def _duplicates_a_concatenation(self, elements: list[cst.BaseExpression]) -> bool:
        """`torch.cat([f, f], -1)` of a concatenation `f`: it adds a literal repeat of a table
        already made, not a new concatenation of broadcasts."""
        value = self._values.get(elements[0])
        return (
            isinstance(value, Dense) and value.concatenated is not None
            and len({self.facts.text_of(element) for element in elements}) == 1
        )  # fmt: skip

    def _fills_one_value(self, node: cst.BaseExpression) -> bool:
        """`torch.zeros(b, pad, d)`, `torch.full_like(x, -1)`: every element the same value."""
        return isinstance(node, cst.Call) and (
            self.facts.imports.resolve(node.func) in torch_ops.CONSTANT_FILL_FUNCTIONS
        )

    def _meshes_index_vectors(self, call: cst.Call) -> bool:
        """`torch.meshgrid(torch.arange(h), torch.linspace(0, 1, w))`, `torch.broadcast_tensors(
        torch.arange(v), torch.arange(v)[:, None])` (or of a list of them): a coordinate grid,
        whose materializations are position grids (size-aware findings)."""
        inputs = [a.value for a in call.args if a.keyword is None]
        if len(inputs) == 1 and isinstance(inputs[0], (cst.List, cst.Tuple)):
            inputs = [e.value for e in inputs[0].elements]
        values = [self._values.get(node) for node in inputs]
        return bool(values) and all(isinstance(v, Dense) and v.index for v in values)

    def _bind(self, target: cst.BaseExpression, value: Value) -> None:
        if isinstance(target, cst.Name):
            if value is None:
                self.env.pop(target.value, None)
            else:
                self.env[target.value] = value
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, None)
        else:  # attribute or subscript target: evaluate its parts as loads
            self._store(target, target)

    def _store(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        """An item or slice store writes into the tensor it indexes."""
        if isinstance(target, cst.Subscript):
            base = self.ev(target.value)
            for element in target.slice:
                self._ev_children(element)
            if isinstance(base, Broadcast):
                self._write(node, target.value, "setitem", None, base)
            elif isinstance(base, Derived) and isinstance(target.value, cst.Name):
                # `copy[..., 0] += dx`: the positions it indexes change, so the copy no longer
                # repeats the broadcast's values and a reduction of it cannot be narrowed (SL101)
                self._bind(target.value, Dense())
        else:
            self.ev(target)

    def _write(
        self, node: cst.CSTNode, target: cst.BaseExpression, kind: str, method: str | None,
        value: Broadcast,
    ) -> None:  # fmt: skip
        self.writes[node] = Write(node, target, kind, method, value, self._statement)

    # ---- expressions ------------------------------------------------------------------

    def ev(self, node: cst.BaseExpression) -> Value:
        key = (type(self), type(node))
        method = _EV_METHODS.get(key, _UNKNOWN)
        if method is _UNKNOWN:  # read once per (flow class, node class), not per node
            method = _EV_METHODS[key] = getattr(type(self), f"_ev_{type(node).__name__}", None)
        value = method(self, node) if method else self._ev_children(node)
        self._values[node] = value
        return value

    def _ev_children(self, node: cst.CSTNode) -> Value:
        for child in children(node):
            if isinstance(child, cst.BaseExpression):
                self.ev(child)
            elif not isinstance(child, (cst.BaseSuite, cst.BaseStatement)):
                self._ev_children(child)
        return None

    def _ev_Lambda(self, node: cst.Lambda) -> Value:
        """A separate scope whose body runs later, if at all: only its defaults run here. The
        body is a flow of its own, seeded from the env the lambda was made in."""
        for param in _lambda_params(node.params):
            if param.default is not None:
                self.ev(param.default)
        self.lambdas[node] = (dict(self.env), self._statement)
        return None

    def _ev_Name(self, node: cst.Name) -> Value:
        if node.value == "None":
            return NoTensor()
        if node.value in ("True", "False"):
            return Scalar()
        value = self.env.get(node.value)
        if value is None and node.value in self.facts.kernels:
            value = KernelHandle(frozenset({node.value}))
        self.loads[node] = value
        return value

    def _ev_Dict(self, node: cst.Dict) -> Value:
        """A dict whose values include kernels is a table of kernels (`KERNELS[key][grid](...)`)."""
        kernels: set[str] = set()
        for element in node.elements:
            self._ev_children(element)
            value = self._values.get(getattr(element, "value", None))
            if isinstance(value, KernelHandle) and not value.launcher:
                kernels |= value.kernels
        return KernelHandle(frozenset(kernels), table=True) if kernels else None

    def _ev_Integer(self, node: cst.BaseExpression) -> Value:
        return Scalar()

    _ev_Float = _ev_Imaginary = _ev_SimpleString = _ev_Integer
    _ev_ConcatenatedString = _ev_FormattedString = _ev_Integer

    def _ev_UnaryOperation(self, node: cst.UnaryOperation) -> Value:
        operand = self.ev(node.expression)
        if isinstance(node.operator, cst.Not):
            return None
        integer = isinstance(node.operator, cst.BitInvert)
        return self._elementwise(node, [(node.expression, operand)], "elementwise", integer)

    def _ev_BinaryOperation(self, node: cst.BinaryOperation) -> Value:
        left, right = self.ev(node.left), self.ev(node.right)
        if isinstance(node.operator, cst.MatrixMultiply):
            return None
        integer = isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor))
        operands = [(node.left, left), (node.right, right)]
        return self._elementwise(node, operands, "elementwise", integer)

    def _ev_Comparison(self, node: cst.Comparison) -> Value:
        left = self.ev(node.left)
        operands = [(node.left, left)]
        for target in node.comparisons:
            operands.append((target.comparator, self.ev(target.comparator)))
        python_only = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
        if len(node.comparisons) != 1 or isinstance(node.comparisons[0].operator, python_only):
            return Scalar()
        return self._elementwise(node, operands, "elementwise", True)

    def _ev_BooleanOperation(self, node: cst.BooleanOperation) -> Value:
        self.ev(node.left)
        self.ev(node.right)
        return None

    def _ev_IfExp(self, node: cst.IfExp) -> Value:
        self.ev(node.test)
        return join(self.ev(node.body), self.ev(node.orelse))

    def _ev_NamedExpr(self, node: cst.NamedExpr) -> Value:
        value = self.ev(node.value)
        self._bind(node.target, value)
        return value

    def _ev_Attribute(self, node: cst.Attribute) -> Value:
        base = self.ev(node.value)
        name = node.attr.value
        owner = self._on_self(node)
        if owner is not None:
            found = self.facts.classes.submodule(owner, name)
            if found is not None:
                return ModuleRef(*found)
        if name in self.facts.kernels and not isinstance(base, (Broadcast, Dense, Derived)):
            return KernelHandle(frozenset({name}))  # `specializations.get(...)._kernel`
        if name in torch_ops.SCALAR_ATTRIBUTES:
            return Scalar()
        if name in torch_ops.VIEW_ATTRIBUTES:
            return _as_view(base)
        if isinstance(base, Scalar):  # `torch.finfo(dtype).min`, `x.shape.numel`
            return Scalar()
        return None

    def _ev_Subscript(self, node: cst.Subscript) -> Value:
        base = self.ev(node.value)
        if isinstance(base, ModuleRef) and base.many:  # `self.blocks[i]`: one of them
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    self.ev(element.slice.value)
            return ModuleRef(base.callee)
        basic = True
        numbers = 0  # the leading entries that are one number each (`e[0]`, `e[b, -1]`)
        for position, element in enumerate(node.slice):
            inner = element.slice
            if isinstance(inner, cst.Index):
                index_value = self.ev(inner.value)
                if position == numbers and isinstance(index_value, Scalar) and not (
                    isinstance(inner.value, cst.Name) and inner.value.value == "None"
                ):
                    numbers += 1
                if not isinstance(inner.value, (cst.Integer, cst.Name, cst.Ellipsis)) and not (
                    isinstance(index_value, Scalar)
                ):
                    basic = False
                if isinstance(inner.value, cst.Name) and (
                    isinstance(index_value, (Broadcast, Dense, Derived))
                    or index_value is None and _MASK_NAME.search(inner.value.value.lower())
                ):
                    basic = False  # indexing with a tensor gathers: a copy
            else:
                self._ev_children(inner)
        if isinstance(base, KernelHandle) and not base.launcher:
            # `KERNELS[key]` picks a kernel from a table; `kernel[grid]` makes its launcher.
            return KernelHandle(base.kernels, launcher=not base.table)
        hook_value = self._hook_argument(node)
        if hook_value is not None:
            return hook_value
        if isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape":
            return Scalar()
        if is_stride_call(node.value):
            return Scalar()
        if not basic:
            return Dense() if isinstance(base, (Broadcast, Dense, Derived)) else None
        if isinstance(base, Broadcast) and base.group is not None:
            return _indexed(base, node)
        if isinstance(base, Broadcast) and base.leading is not None and numbers >= base.leading:
            # `rows[b]` of `rows = row.expand(n, -1)`: every dim it may be stride 0 along is
            # indexed away by a number, what is left is one dense row
            return None
        return _as_view(base)

    def _hook_argument(self, node: cst.Subscript) -> Value:
        if self.hook_args_name is None or not isinstance(node.value, cst.Name):
            return None
        if node.value.value != self.hook_args_name or len(node.slice) != 1:
            return None
        key = node.slice[0].slice
        if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString):
            return self.hook_arguments.get(str(key.value.evaluated_value))
        return None

    def _repeats_documented_matrices(
        self, call: cst.Call, pattern: einops_patterns.Pattern
    ) -> bool:
        """`repeat(viewmats, "B T M N -> B (T H W) M N")` of a parameter documented as
        `[B, T, 4, 4]`: the axes after the last new one are the input's own last axes, which
        the docstring writes as literal sizes, a matrix of at most FEW_NUMBERS numbers, as
        `_repeats_small_matrices` asks of an expand."""
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if not positional or not isinstance(positional[0], cst.Name):
            return False
        shape = self.facts.parameter_shape(positional[0])
        if shape is None or len(shape) != len(pattern.left):
            return False
        trailing = []
        for group in reversed(pattern.right):
            if len(group) != 1 or group[0] in pattern.new_axes or group not in pattern.left:
                break
            size = shape[pattern.left.index(group)]
            trailing.append(int(size) if size.isdigit() else None)
        return _a_small_matrix(trailing)

    def _selection(self, node: cst.CSTNode, selected: cst.Subscript, kind: str) -> None:
        """`x[mask].numel()` or `x[mask] += v` with `mask` a broadcast bool tensor: indexing
        finds every element the mask selects over its logical size, an int64 index each, and
        gathers them, only to count them (the count is the mask's, semantics §1.4's count
        rescaled), or to update them in place (found again to write them back), where
        `torch.where` or an op on the mask before its expand reads the mask through its
        strides."""
        if len(selected.slice) != 1 or not isinstance(selected.slice[0].slice, cst.Index):
            return
        mask_node = selected.slice[0].slice.value
        mask = self._values.get(mask_node)
        if not isinstance(mask, Broadcast):
            return
        if dtypes.dtype_of(self.facts, mask_node, self._statement) != "bool":
            return  # an integer index gathers rows: the count is its length, no broadcast read
        self.broadcast_reductions[node] = BroadcastReduction(
            node, mask_node, mask, self._statement, selection=kind
        )

    def _keeps_dtype(self, cast: cst.Call, receiver: cst.BaseExpression) -> bool:
        target = dtypes.cast_target(self.facts, cast, self._statement)
        return target is not None and target == dtypes.dtype_of(
            self.facts, receiver, self._statement
        )

    def _hook_get(self, node: cst.Call) -> Value:
        """`args.get("Mask")` in a launch-metadata hook reads the same entry as `args["Mask"]`."""
        func = node.func
        if self.hook_args_name is None or not isinstance(func, cst.Attribute):
            return None
        if func.attr.value != "get" or not node.args or node.args[0].keyword is not None:
            return None
        if not isinstance(func.value, cst.Name) or func.value.value != self.hook_args_name:
            return None
        key = node.args[0].value
        if isinstance(key, cst.SimpleString):
            return self.hook_arguments.get(str(key.evaluated_value))
        return None

    def _ev_Call(self, node: cst.Call) -> Value:
        value = self._call(node)
        self._run_per_token(node)
        writes_out = dotted(node.func) not in ("dict", "print")
        for arg in node.args:
            if writes_out and arg.keyword is not None and arg.keyword.value == "out":
                out = self._values.get(arg.value)
                if isinstance(out, Broadcast):
                    self._write(node, arg.value, "out", None, out)
        return value

    def _run_per_token(self, node: cst.Call) -> None:
        """`self.time_embedder(t.expand(token_h * token_w))`: a module the code holds, given one
        number or one row copied per token as its first argument, runs once per copy
        (per_token.py)."""
        first = node.args[0] if node.args else None  # positional arguments come first
        if first is None or first.keyword is not None or first.star:
            return
        value = self._values.get(first.value)
        form = per_token.COPY
        if isinstance(value, Dense):  # per-sample rows each copied per token, then joined; one
            # number filled at every position of a per-token copy; or rows computed from a copy
            form = (
                per_token.FILL if value.filled is not None
                else per_token.COMPUTED if value.copied is not None
                else per_token.CONCATENATION
            )  # fmt: skip
            value = value.filled or value.copied or value.concatenated
        repeats = isinstance(value, Broadcast) and (value.per_token or form == per_token.COMPUTED)
        if repeats and per_token.runs_a_held_module(self, node):
            self.per_token_calls[node] = PerTokenCall(
                node, first.value, value, self._statement, form
            )

    def _call(self, node: cst.Call) -> Value:
        func = node.func
        qualified = self.facts.imports.resolve(func)
        if isinstance(func, cst.Attribute) and qualified is None:
            receiver = self.ev(func.value)
            arguments = [(arg, self.ev(arg.value)) for arg in node.args]
            if isinstance(receiver, KernelHandle) and receiver.table and func.attr.value == "get":
                return KernelHandle(receiver.kernels)
            hook_value = self._hook_get(node)
            if hook_value is not None:
                return hook_value
            key = self._method_call(func)
            if key is not None:
                return self._call_into(node, key, arguments)
            return self._method(node, func.attr.value, func.value, receiver, arguments)
        if isinstance(func, cst.Subscript):
            launched = self.ev(func)
            arguments = [(arg, self.ev(arg.value)) for arg in node.args]
            if isinstance(launched, ModuleRef) and not launched.many:  # `self.blocks[i](x)`
                return self._call_into(node, launched.callee, arguments)
            return self._maybe_launch(node, func, launched, arguments)
        if not isinstance(func, (cst.Name, cst.Attribute)):
            self.ev(func)
        arguments = [(arg, self.ev(arg.value)) for arg in node.args]
        if isinstance(func, cst.Name):
            held = self.env.get(func.value)  # a launcher kept in a variable: `run = k[grid]`
            if isinstance(held, KernelHandle) and held.launcher:
                self._launch(node, held, arguments)
                return None
            if isinstance(held, ModuleRef) and not held.many:  # `for block in self.blocks`
                return self._call_into(node, held.callee, arguments)
        if qualified == "functools.partial" and arguments:
            return self._partial(arguments)
        if qualified is not None:
            return self._function(node, qualified, arguments)
        if isinstance(func, cst.Name):
            tensors = [
                (a.value, v) for a, v in arguments if isinstance(v, (Broadcast, Derived, Dense))
            ]
            if func.value in ("abs", "round") and tensors:
                return self._elementwise(node, tensors, "elementwise", False)  # `abs(t)` is `t.abs()`
            if func.value in torch_ops.SCALAR_BUILTINS:
                return Scalar()
            if func.value in self.facts.top_functions:
                return self._call_into(node, func.value, arguments)
        return None

    def _call_into(self, node: cst.Call, key: str, arguments: list[tuple[cst.Arg, Value]]) -> Value:
        """A call of a function of this module (`key`, module.py's `callee`): its arguments
        go to its parameters, and it gives back what it returns when that is summarized."""
        self.calls[node] = _call_site(node, key, arguments)
        summary = self.return_facts.get(key)
        if isinstance(summary, Dense):  # rows computed from values copied per token, when
            # this call passes such values (the caller's copy, with its evidence)
            given = [v for _, v in arguments if isinstance(v, Dense) and v.copied is not None]
            return replace(summary, copied=given[0].copied) if given else None
        return summary

    # ---- calls ------------------------------------------------------------------------

    def _method(
        self,
        node: cst.Call,
        name: str,
        receiver_node: cst.BaseExpression,
        receiver: Value,
        arguments: list[tuple[cst.Arg, Value]],
    ) -> Value:
        if name in torch_ops.SCALAR_METHODS:
            if name in torch_ops.COUNT_METHODS and isinstance(receiver_node, cst.Subscript):
                self._selection(node, receiver_node, "count")
            return Scalar()
        if name in torch_ops.INPLACE_EXCEPTIONS:
            return receiver
        if writes_in_place(name):
            if isinstance(receiver, Broadcast):
                self._write(node, receiver_node, "inplace", name, receiver)
            elif isinstance(receiver, Derived) and not _uniform_update(name, arguments):
                # `copy.scatter_(...)`: some positions change, so the copy no longer repeats
                # the broadcast's values and a reduction of it cannot be narrowed (SL101)
                if isinstance(receiver_node, cst.Name):
                    self._bind(receiver_node, Dense())
                return Dense()
            return receiver
        if name in torch_ops.LAYOUT_METHODS and isinstance(receiver, Broadcast):
            self.layout_ops[node] = LayoutOp(node, receiver_node, name, receiver, self._statement)
            # numbers copied per token, made dense (`Dense.copied`)
            return Dense(copied=receiver) if self._numbers_per_token(receiver_node) else None
        if name in torch_ops.LAYOUT_METHODS and isinstance(receiver, Dense) and (
            receiver.index or receiver.concatenated is not None or receiver.copied is not None
        ):
            # `torch.arange(n).reshape(1, n, 1)`: the same positions (a view), of another rank
            return _as_view(receiver)
        if name in torch_ops.BROADCAST_METHODS and _looks_like_tensor_receiver(receiver_node, node):
            if name == "expand" and _keeps_every_size(node):
                return _as_view(receiver)  # `x.expand(1, -1)`: no dim grows, no stride 0 made
            return self._broadcast_source(node, receiver_node, receiver)
        if name == "narrow" and _narrows_to_one_by_variable(node) and isinstance(
            receiver, (Broadcast, Narrowed)
        ):
            return Narrowed()
        if name in torch_ops.VIEW_METHODS or name in torch_ops.DEVICE_METHODS:
            keeps_rank = name in _RANK_KEEPING_VIEWS or name in torch_ops.DEVICE_METHODS
            return _as_view(receiver, keeps_rank=keeps_rank)
        if name == "to" and not _has_dtype_argument(node, self.facts):
            return _as_view(receiver, keeps_rank=True)
        if name in ("to", "type") and node.args or name in torch_ops.CAST_METHODS | {"type_as"}:
            if isinstance(receiver, Broadcast) and self._keeps_dtype(node, receiver_node):
                return receiver  # a cast to the dtype it has returns the tensor (semantics §1.1)
            integer = name in torch_ops.BOOL_CASTS | torch_ops.INTEGER_CASTS or any(
                names_integer_dtype(arg.value) for arg in node.args
            )
            return self._elementwise(node, [(receiver_node, receiver)], "cast", integer)
        if name in torch_ops.COPY_METHODS:
            return self._elementwise(node, [(receiver_node, receiver)], "copy", False)
        if name in torch_ops.ELEMENTWISE_METHODS:
            operands = [(receiver_node, receiver)] + [(a.value, v) for a, v in arguments]
            integer = name in torch_ops.BOOL_RESULT_METHODS
            return self._elementwise(node, operands, "elementwise", integer)
        if name in torch_ops.REDUCTIONS and _is_reduction_call(name, node):
            full = reduction_dim(node, functional=False) is None
            return self._reduction(node, receiver_node, receiver, full)
        return None

    def _function(
        self, node: cst.Call, qualified: str, arguments: list[tuple[cst.Arg, Value]]
    ) -> Value:
        positional = [(a.value, v) for a, v in arguments if a.keyword is None and not a.star]
        if qualified in torch_ops.LAUNCH_FUNCTIONS:
            self._launch_call(node, qualified, positional)
            return None
        if qualified in torch_ops.BOOL_MASK_ARGUMENTS:
            self._bool_mask_argument(qualified, arguments)
            return None
        if qualified in torch_ops.BROADCAST_FUNCTIONS and positional:
            return self._broadcast_source(node, positional[0][0], positional[0][1])
        if qualified in torch_ops.PATTERN_VIEW_FUNCTIONS and positional:
            return self._pattern_call(node, qualified, positional[0], _pattern_of(node))
        if qualified in torch_ops.STRIDED_FUNCTIONS and _has_literal_zero_stride(
            node, torch_ops.STRIDE_POSITIONS[qualified]
        ):
            evidence = self.facts.evidence_at(
                node, f"`{qualified.split('.')[-1]}` is given a literal 0 stride"
            )
            return Broadcast(State.DEFINITE, (evidence,), local=True)
        if qualified in torch_ops.SCALAR_FUNCTIONS:
            return Scalar()
        if qualified in torch_ops.FRESH_FUNCTIONS:
            if qualified in torch_ops.LIKE_FUNCTIONS and positional and isinstance(
                positional[0][1], Broadcast
            ):
                operand, value = positional[0]
                name = qualified.split(".")[-1]
                self.layout_ops[node] = LayoutOp(node, operand, name, value, self._statement)
            index = (
                qualified in torch_ops.INDEX_FUNCTIONS
                or qualified == "torch.tensor" and _literal_numbers(node)
                or qualified in torch_ops.JOIN_FUNCTIONS and self._joins_positions(node)
            )
            joins = qualified in torch_ops.JOIN_FUNCTIONS and not index
            concatenated = self._concatenated_broadcasts(node) if joins else None
            copied = self._joined_copies(node) if joins and concatenated is None else None
            if copied is not None:
                return copied
            shaped_like = positional[0][1] if positional else None
            filled = (
                shaped_like
                if qualified in _FILLS_LIKE
                and isinstance(shaped_like, Broadcast) and shaped_like.per_token
                else None
            )
            return Dense(index=index, concatenated=concatenated, filled=filled)
        if qualified in torch_ops.ELEMENTWISE_FUNCTIONS:
            operands = [(a.value, v) for a, v in arguments]
            integer = qualified.split(".")[-1] in torch_ops.BOOL_RESULT_METHODS
            return self._elementwise(node, operands, "elementwise", integer)
        if qualified in torch_ops.OUTER_FUNCTIONS and positional:
            first = positional[0][1]  # row i of `torch.outer(a, b)` is `a[i] * b`
            if isinstance(first, Dense) and first.copied is not None:
                return replace(first, rows=True)
            return None
        if qualified in torch_ops.REDUCTION_FUNCTIONS and positional:
            name = qualified.split(".")[-1]
            # `torch.max(a, b)` is elementwise; `torch.max(a, 1)` and `torch.max(a)` reduce.
            if name not in torch_ops.DIM_REQUIRED_FOR_TUPLE or len(positional) == 1 or (
                isinstance(positional[1][0], (cst.Integer, cst.UnaryOperation))
            ):
                full = reduction_dim(node, functional=True) is None
                return self._reduction(node, positional[0][0], positional[0][1], full)
            operands = [(a.value, v) for a, v in arguments]
            return self._elementwise(node, operands, "elementwise", False)
        if qualified.startswith("math."):
            return Scalar()
        return None

    def _bool_mask_argument(self, qualified: str, arguments: list[tuple[cst.Arg, Value]]) -> None:
        """`F.scaled_dot_product_attention(q, k, v, attn_mask=m)` with `m` a broadcast bool
        mask: the call converts it to a float bias of its full logical size (a sink inside
        the call). A float mask, or one whose dtype the code does not show, is left alone."""
        keyword, position = torch_ops.BOOL_MASK_ARGUMENTS[qualified]
        named = [(a.value, v) for a, v in arguments if a.keyword and a.keyword.value == keyword]
        positional = [(a.value, v) for a, v in arguments if a.keyword is None]
        if named:
            mask, value = named[0]
        elif len(positional) > position and not any(a.star for a, _ in arguments[: position + 1]):
            mask, value = positional[position]
        else:
            return
        if not isinstance(value, Broadcast):
            return
        if dtypes.dtype_of(self.facts, mask, self._statement) != "bool":
            return  # a float bias is read through its strides
        sink = self.sinks.get(mask)
        if sink is None:
            operands = ((mask, value),)
            sink = Sink(
                mask, "elementwise", operands, (), True, self._statement, consumer=qualified
            )
            self.sinks[mask] = sink
        else:  # second loop pass: keep the object, refresh what it saw
            sink.operands = ((mask, value),)

    def _pattern_call(
        self,
        node: cst.Call,
        qualified: str,
        operand: tuple[cst.BaseExpression, Value],
        pattern: einops_patterns.Pattern | None,
    ) -> Value:
        """`einops.repeat(x, "b d -> b r d")` expands its new axes: a stride-0 view; a pattern
        whose output merges no axes is a view of its input. A `repeat` whose output group
        joins a new axis to one of the input's (`"(b t) c -> b (t h w) c"`) copies the
        repeated tensor whole: a layout op that merges (SL301/SL302). Anything else is
        unknown: which input dims a merged group holds is not known."""
        if pattern is None:
            return None
        repeats = qualified in torch_ops.PATTERN_BROADCAST_FUNCTIONS and pattern.new_axes
        if repeats and pattern.merges:
            merged = einops_patterns.merged_new_axis(pattern)
            if merged is not None:
                value = self._broadcast_source(node, operand[0], operand[1], pattern)
                phrase = f"merges the new axis `{merged[0]}` with `{merged[1]}`"
                self.layout_ops[node] = LayoutOp(
                    node, operand[0], "repeat", value, self._statement, phrase
                )
            return None
        if pattern.merges:
            return None
        if repeats:
            return self._broadcast_source(node, operand[0], operand[1], pattern)
        return operand[1] if isinstance(operand[1], Broadcast) else None

    def _broadcast_source(
        self,
        node: cst.Call,
        receiver_node: cst.BaseExpression,
        receiver: Value,
        pattern: einops_patterns.Pattern | None = None,  # an einops call's, parsed by the caller
    ) -> Broadcast:
        evidence = (NodeEvidence(self.facts, node, "`{}` " + MAKES_A_STRIDE_0_VIEW),)
        if isinstance(receiver, Broadcast):
            evidence = evidence + receiver.evidence
        head = _head_name(receiver_node)
        dims = provenance.expanded_dims(self.facts, node)
        one_dim = self._one_dim_size(node)
        small = (not isinstance(receiver, Broadcast) or receiver.small) and (
            one_dim is not None
            or dims is not None and _small_dims(dims, node)
            or _name_says(_NOISE_LEVEL_NAME, head)
            or pattern is not None and _repeats_a_few_times_or_per_head(node, pattern)
            or pattern is not None and self._repeats_documented_matrices(node, pattern)
            or _moved_to_the_host(self.facts, receiver_node, self._statement)
        )
        grid = (
            isinstance(receiver, Dense) and receiver.index
            or isinstance(receiver, Broadcast) and receiver.grid
            or _name_says(_INDEX_NAME, head)
            or _name_says(_INDEX_NAME, self._name_given(node))
        )
        leading = (
            max(dims.candidates) + 1
            if dims is not None and dims.candidates and not isinstance(receiver, Broadcast)
            else None
        )
        per_copy = not (
            isinstance(receiver, Broadcast) or grid or _made_from_a_number(receiver_node)
        ) and per_token.copies_per_token(one_dim, dims)
        weights = receiver.weights if isinstance(receiver, Broadcast) else holds_parameter(
            self.facts, receiver_node, self._statement, self._owner
        )
        return Broadcast(
            State.DEFINITE, evidence, local=True, small=small, grid=grid, leading=leading,
            per_token=per_copy, rank=len(dims.nodes) if dims is not None else None,
            weights=weights,
        )

    def _name_given(self, node: cst.BaseExpression) -> str | None:
        """The name the statement `name = value` binds, when `node` is that value or what its
        chain of methods and subscripts starts from (`ids = t.expand(b, -1).contiguous()`), not
        an argument inside it (`positions = rotate(q.expand(n, 4), positions)`)."""
        name = assigned_name(self._statement)
        if name is None:
            return None
        value = self._statement.body[0].value  # type: ignore[union-attr]
        while value is not node:
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
                value = value.func.value
            elif isinstance(value, (cst.Subscript, cst.Attribute)):
                value = value.value
            else:
                return None
        return name

    def _one_dim_size(self, call: cst.Call) -> cst.BaseExpression | None:
        """B in `t.expand(B)` / `torch.broadcast_to(t, (B,))` with B a number (`x.shape[0]`,
        `x.size(0)`, `len(xs)`, a literal or a name known to hold a number): a 1-D result,
        never larger than one dim; None otherwise. A single name of unknown value may be a
        whole shape."""
        sizes = [a.value for a in call.args if a.keyword is None]
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "expand_as":
            return None
        if self.facts.imports.resolve(call.func) is not None:  # torch.broadcast_to(t, shape)
            sizes = sizes[1:]
            if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
                sizes = [e.value for e in sizes[0].elements]
        if len(sizes) > 1:  # `expand(1, n)`, `expand(n, 1)`: unit dims add no elements
            sizes = [s for s in sizes if not (isinstance(s, cst.Integer) and s.value == "1")]
        if len(sizes) != 1 or any(a.star for a in call.args):
            return None
        return sizes[0] if self._is_one_number(sizes[0]) else None

    def _is_one_number(self, node: cst.BaseExpression) -> bool:
        """A size the code spells as one number (a name may hold a whole `x.shape`)."""
        return _spells_one_number(node, self._number_names)

    @cached_property
    def _number_names(self) -> frozenset[str]:
        """Names that hold one number wherever the function binds them: parameters annotated
        `int`, names every assignment gives a number (`B = x.shape[0]`, `n = len(xs)`), and
        the names a shape is unpacked into (`B, T = x.shape`)."""
        numbers: set[str] = {
            p.name.value for p in (*self.func.params.params, *self.func.params.kwonly_params)
            if p.annotation is not None and dotted(p.annotation.annotation) == "int"
        }  # fmt: skip
        others: set[str] = set()
        for assign in descendants(self.func.body, cst.Assign):
            for target in assign.targets:
                if isinstance(target.target, cst.Name):
                    number = _spells_one_number(assign.value, frozenset())
                    (numbers if number else others).add(target.target.value)
                elif isinstance(target.target, (cst.Tuple, cst.List)):
                    names = [e.value for e in target.target.elements if isinstance(e.value, cst.Name)]
                    unpacks_shape = _reads_shape(assign.value)
                    for name in names:
                        (numbers if unpacks_shape else others).add(name.value)
        return frozenset(numbers - others)

    def _maybe_launch(
        self,
        node: cst.Call,
        func: cst.Subscript,
        launched: Value,
        arguments: list[tuple[cst.Arg, Value]],
    ) -> Value:
        if isinstance(launched, KernelHandle) and launched.launcher:
            self._launch(node, launched, arguments)
            return None
        kernel = dotted(func.value)
        if kernel and self.facts.is_kernel_name(kernel):  # an imported kernel: parameters unknown
            self.launches[node] = _call_site(node, kernel, arguments, kernels=(kernel,))
        return None

    def _launch_call(
        self, node: cst.Call, qualified: str, positional: list[tuple[cst.BaseExpression, Value]]
    ) -> None:
        """`ct.launch(stream, grid, kernel, (a, b))`: a launch of `kernel` with a and b (the
        call makes its function a kernel wrapper, as `kernel[grid](a, b)` does)."""
        kernel_at, arguments_at = torch_ops.LAUNCH_FUNCTIONS[qualified]
        if len(positional) <= kernel_at:
            return
        kernel = dotted(positional[kernel_at][0]) or self.facts.snippet(positional[kernel_at][0])
        passed = positional[arguments_at][0] if len(positional) > arguments_at else None
        elements = passed.elements if isinstance(passed, (cst.Tuple, cst.List)) else ()
        arguments = [
            (cst.Arg(e.value), self._values.get(e.value)) for e in elements
            if not isinstance(e, cst.StarredElement)
        ]  # fmt: skip
        self.launches[node] = _call_site(node, kernel, arguments, kernels=(kernel,))

    def _launch(
        self, node: cst.Call, launcher: KernelHandle, arguments: list[tuple[cst.Arg, Value]]
    ) -> None:
        kernels = tuple(sorted(launcher.kernels))
        site = _call_site(node, kernels[0], arguments, kernels=kernels)
        if launcher.bound:  # functools.partial fixed the leading arguments
            shift = sum(1 for key, _, _ in launcher.bound if isinstance(key, int))
            moved = tuple(
                (key + shift if isinstance(key, int) else key, expr, value)
                for key, expr, value in site.arguments
            )
            site = CallSite(node, site.callee, launcher.bound + moved, kernels)
        self.launches[node] = site

    def _partial(self, arguments: list[tuple[cst.Arg, Value]]) -> Value:
        """`functools.partial(kernel[grid], a, b=c)`: a launcher with its first arguments fixed."""
        (first, target), rest = arguments[0], arguments[1:]
        if first.keyword is not None or not isinstance(target, KernelHandle) or not target.launcher:
            return None
        if target.bound or any(arg.star for arg, _ in rest):
            return None  # nested partials or splats: positions cannot be known
        bound = _call_site(first.value, "", rest).arguments  # type: ignore[arg-type]
        return KernelHandle(target.kernels, launcher=True, bound=bound)

    # ---- transfer functions -----------------------------------------------------------

    def _elementwise(
        self,
        node: cst.BaseExpression,
        operands: list[tuple[cst.BaseExpression, Value]],
        kind: str,
        integer_result: bool,
    ) -> Value:
        values = [value for _, value in operands]
        derived = [v for v in values if isinstance(v, Derived)]
        if derived and any(
            v is None and not _is_scalar_literal(e) or isinstance(v, Dense) and not v.index
            for e, v in operands
        ):
            # Mixed with a tensor that may be full-size and dense: the result is no longer a
            # function of the broadcast alone, so a later reduction cannot be narrowed (the
            # materialization stays the op's own finding, SL201's to hoist).
            return None
        if derived:
            sinks = frozenset().union(*(d.sinks for d in derived))
            return Derived(sinks, any(d.reduced for d in derived), all(d.exact for d in derived))
        concatenated = self._op_on_a_concatenation(node, operands, kind)
        if concatenated is not None:
            return concatenated
        copied = _copied_by_rows(operands)
        if copied is not None:
            return copied
        if any(isinstance(v, (Dense, Narrowed)) for v in values):
            index = _keeps_positions(node, kind) and all(
                isinstance(v, Dense) and v.index or isinstance(v, Scalar) or _is_scalar_literal(e)
                or v is None and isinstance(e, cst.Attribute)  # `ids * self.config.stride`
                or v is None and self._is_one_number(e)  # `merge = self.merge_size; ids * merge`
                for e, v in operands
            )
            if index and provenance.pairs_a_vector_with_itself(
                self.facts, [e for e, _ in operands], self._statement
            ):
                return Dense()  # the n x n table of pairs: its expands are no position grids
            return Dense(index)
        broadcast = [(expr, v) for expr, v in operands if isinstance(v, Broadcast)]
        if not broadcast:
            return Scalar() if values and all(isinstance(v, Scalar) for v in values) else None
        unknown = [
            expr for expr, v in operands if v is None and not _is_scalar_literal(expr)
        ]
        if unknown:
            return None  # another operand may be full-size already: nothing is blown up
        if _covers_a_group([value for _, value in broadcast]):
            # `q1, q2 = torch.broadcast_tensors(q1, q2)` then `q1[..., 0] * q2[..., 0]`: every
            # dim the call grew is dense in one of them, the result is the output (`Group`)
            return Dense(all(value.grid for _, value in broadcast))
        if len(broadcast) > 1 and provenance.broadcast_along_different_dims(
            self.facts, broadcast, self._statement
        ):
            # `a.view(-1, 1).expand(n, m) + b.view(1, -1).expand(n, m)`: an outer op, holding a
            # different value everywhere; no waste to hoist or narrow (semantics §0 rule 5)
            return Dense()
        scalars = tuple(expr for expr, v in operands if not isinstance(v, Broadcast))
        sink = self.sinks.get(node)
        if sink is None:
            sink = Sink(node, kind, tuple(broadcast), scalars, integer_result, self._statement)
            self.sinks[node] = sink
        else:  # second loop pass: keep the object, refresh what it saw
            sink.operands = tuple(broadcast)
        return Derived(frozenset({sink}))

    def _op_on_a_concatenation(
        self,
        node: cst.BaseExpression,
        operands: list[tuple[cst.BaseExpression, Value]],
        kind: str,
    ) -> Value:
        """An elementwise op or cast whose one tensor operand is a concatenation of broadcasts
        (`freqs.to(x.dtype)`, `freqs.cos()`, `2 * freqs`): recorded (`ConcatenatedOp`), its
        result an ordinary dense tensor; None when the op is not one."""
        if kind not in ("elementwise", "cast") or not any(
            isinstance(value, Dense) and value.concatenated is not None for _, value in operands
        ):
            return None
        tensors = [
            (expr, value) for expr, value in operands
            if not (isinstance(value, Scalar) or _is_scalar_literal(expr))
        ]  # fmt: skip
        if len(tensors) != 1:
            return None
        expr, value = tensors[0]
        if not isinstance(value, Dense) or value.concatenated is None:
            return None  # the concatenation is one of several tensors
        self.concatenated_ops[node] = ConcatenatedOp(
            node, expr, value.concatenated, self._statement, kind
        )
        return Dense()

    def _reduction(
        self, node: cst.Call, operand_node: cst.BaseExpression, operand: Value, full: bool
    ) -> Value:
        """A full reduction's result is an ordinary small tensor; a partial one still carries
        its sinks (a fix must rescale it again at the next reduction)."""
        if isinstance(operand, Broadcast):
            self.broadcast_reductions[node] = BroadcastReduction(
                node, operand_node, operand, self._statement
            )
            return Dense()
        if isinstance(operand, Derived):
            if not operand.reduced:
                for sink in operand.sinks:
                    if node not in sink.reductions:
                        sink.reductions.append(node)
            return Dense() if full else Derived(operand.sinks, True, operand.exact)
        return None

    def _resolves_to(self, node: cst.BaseExpression, names: frozenset[str]) -> bool:
        return isinstance(node, cst.Call) and self.facts.imports.resolve(node.func) in names


# ---- helpers ------------------------------------------------------------------------------

# (flow class, node class) -> the flow's `_ev_<node class>` function, or None.
_EV_METHODS: dict[tuple[type, type], Callable[..., Value] | None] = {}
_UNKNOWN = object()


# `torch.full_like(t, v)`: one value in the shape of its first argument.
_FILLS_LIKE = torch_ops.CONSTANT_FILL_FUNCTIONS & torch_ops.LIKE_FUNCTIONS
# Views with the dims of their input, in some order.
_RANK_KEEPING_VIEWS = frozenset({"permute", "transpose", "t", "contiguous"})


def _copied_by_rows(operands: list[tuple[cst.BaseExpression, Value]]) -> Dense | None:
    """An op on tensors whose rows repeat per token (`Dense.copied`) and numbers only
    (`t.float()`, `2 * t`, `t.cos()`): its rows repeat too. Another tensor may differ per
    token, so an op with one is not this."""
    copies = [v for _, v in operands if isinstance(v, Dense) and v.copied is not None]
    if not copies or not all(
        isinstance(v, Dense) and v.copied is not None or isinstance(v, Scalar)
        or _is_scalar_literal(e)
        for e, v in operands
    ):
        return None
    return _copies_joined(copies)


def _copies_joined(copies: list[Dense]) -> Dense:
    """One tensor made from several whose rows repeat per token: the copied broadcasts
    joined, with a dim of features if any has one."""
    merged = reduce(join, [v.copied for v in copies])
    return Dense(copied=merged, rows=any(v.rows for v in copies))  # type: ignore[arg-type]


def _join_elements(call: cst.Call) -> Sequence[cst.BaseElement] | None:
    """The elements of the literal list or tuple a join is given (`torch.cat([a, b], 1)`),
    else None."""
    joined = call.args[0].value if call.args and call.args[0].keyword is None else None
    return joined.elements if isinstance(joined, (cst.List, cst.Tuple)) else None


def _as_view(value: Value, *, keeps_rank: bool = False) -> Value:
    """A view of `value`: the same tensor to the analysis, except that a group member seen
    through a view the group does not track may no longer line up with the others, and that
    a view that may add or merge dims drops the rank."""
    if isinstance(value, Derived):
        return Derived(value.sinks, value.reduced, False)
    rank = value.rank if isinstance(value, Broadcast) and keeps_rank else None
    if isinstance(value, Broadcast) and (
        value.group is not None or value.leading is not None or value.rank != rank
    ):
        return replace(value, group=None, leading=None, rank=rank)
    if isinstance(value, Dense) and value.concatenated is not None and not keeps_rank:
        if value.concatenated.rank is not None:
            return replace(value, concatenated=replace(value.concatenated, rank=None))
    return value


def _indexed(value: Broadcast, node: cst.Subscript) -> Broadcast:
    """A group member indexed by `node`: members indexed alike still line up (`q[..., 0]`
    and `k[..., 3]`), so the group records each entry's kind, and the code of the entries
    whose kind leaves the size open (a bounded slice, a name)."""
    assert value.group is not None
    entries = []
    for element in node.slice:
        kind = index_kind(element.slice)
        shaped = kind in (RANGE, OTHER)
        entries.append((kind, cst.Module([]).code_for_node(element.slice) if shaped else ""))
    group = value.group
    return replace(value, group=replace(group, indexing=group.indexing + (tuple(entries),)))


def _covers_a_group(values: list[Broadcast]) -> bool:
    """Every member of one group, each indexed the same way (an op over them is an outer op)."""
    groups = {value.group for value in values}
    if None in groups or len({(g.call, g.members, g.indexing) for g in groups}) != 1:  # type: ignore[union-attr]
        return False
    first = next(iter(groups))
    return {g.member for g in groups} == set(range(first.members))  # type: ignore[union-attr]


_AFFINE = (
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Minus
)  # fmt: skip
# Methods that map positions to positions (rounded, wrapped, clamped coordinates).
_POSITION_METHODS = frozenset(
    {"round", "floor", "ceil", "trunc", "remainder", "fmod", "clamp", "clamp_min", "clamp_max"}
)


# Names that say a tensor holds ids, indices, lengths, offsets or positions: integer metadata,
# a value per token or request, small beside the activations (size-aware findings).
# How the evidence of an expand ends (rules/wording.py finds the expand by it).
MAKES_A_STRIDE_0_VIEW = "makes a stride-0 view"

_INDEX_NAME = re.compile(
    r"(?:^|_)(?:ids?|idx|idxs|indx|inds|indices|index|lens|lengths|offsets|slots|positions)$"
)


# A name that holds a boolean mask (`valid`, `keep`, `attn_mask`, `is_pad`): `x[valid]` gathers
# the kept elements into a fresh dense tensor (semantics §1.1), it is no view.
_MASK_NAME = re.compile(r"(?:^|_)(?:mask|masks|valid|keep|kept|inside|selected)$|^is_")


# Names that say a tensor holds diffusion timesteps or noise levels: one number per sample or
# frame, so even a copy per token is a token's worth of scalars beside token x hidden
# activations (size-aware findings). Their embeddings (`temb`, `timestep_proj`) are not matched.
_NOISE_LEVEL_NAME = re.compile(r"(?:^|_)(?:timesteps?|sigmas?)$")


def _name_says(pattern: re.Pattern[str], name: str | None) -> bool:
    """Whether `name`, in lower case, matches one of the name patterns above."""
    return name is not None and pattern.search(name.lower()) is not None


# Constructors of a tensor from Python or NumPy data, as the code spells them.
_TENSOR_FROM_DATA = frozenset(
    {"torch.tensor", "torch.Tensor", "torch.as_tensor", "torch.from_numpy", "torch.LongTensor"}
)


def _made_from_a_number(node: cst.BaseExpression) -> bool:
    """`torch.tensor(0.0)`: a tensor of one literal number, expanded as a placeholder whose
    shape, dtype and device the code wants (a positional table's `extend_pe(x)`)."""
    return (
        isinstance(node, cst.Call)
        and dotted(node.func) in _TENSOR_FROM_DATA
        and len(node.args) >= 1
        and _is_scalar_literal(node.args[0].value)
    )


def _head_name(node: cst.BaseExpression) -> str | None:
    """The name a view chain starts from: `self.token_slots[:, None]` -> `token_slots`,
    `(lens + 1).view(b, 1)` -> `lens`, `torch.tensor(t_index).view(-1, 1)` -> `t_index`."""
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and dotted(node.func) in _TENSOR_FROM_DATA and node.args:
            node = node.args[0].value  # the data a tensor is made from names what it holds
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        elif isinstance(node, cst.BinaryOperation):
            node = node.left
        elif isinstance(node, cst.Attribute):
            return node.attr.value
        elif isinstance(node, cst.Name):
            return node.value
        else:
            return None


def _moved_to_the_host(
    facts: ModuleFacts, node: cst.BaseExpression, statement: cst.CSTNode | None, hops: int = 3
) -> bool:
    """`out = scores.detach().cpu().sigmoid()`, then `out[:, None].expand(...)`: a chain of
    views, methods and arithmetic, through the assignments its names read (a few hops), that
    moves the tensor to the CPU with `.cpu()` or `.to("cpu")`. Host-side post-processing, not
    the GPU work a kernel wrapper does: its copies are cheap beside the device's (low severity).
    Arithmetic is on the host when an operand is (a CPU tensor meets only CPU tensors or
    numbers)."""
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if _moves_to_cpu(node):
                return True
            node = node.func.value
        elif isinstance(node, cst.BinaryOperation):
            return _moved_to_the_host(facts, node.left, statement, hops) or _moved_to_the_host(
                facts, node.right, statement, hops
            )
        else:
            break
    if not isinstance(node, cst.Name) or hops == 0:
        return False
    found = reaching_assignment(facts, node, statement)
    return found is not None and _moved_to_the_host(facts, found[0].value, found[1], hops - 1)


def _moves_to_cpu(call: cst.Call) -> bool:
    method = call.func.attr.value  # type: ignore[attr-defined]
    if method == "cpu":
        return True
    return method == "to" and any(
        isinstance(a.value, cst.SimpleString) and a.value.evaluated_value == "cpu"
        for a in call.args
    )


def _rank_of(node: cst.BaseExpression) -> cst.Name | None:
    """The tensor name whose number of dims `node` reads: `t.ndim`, `t.dim()`, `len(t.shape)`."""
    if isinstance(node, cst.Attribute) and node.attr.value == "ndim":
        tensor = node.value
    elif isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        tensor = node.func.value if node.func.attr.value == "dim" else None
    elif (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name)
        and node.func.value == "len" and len(node.args) == 1
        and isinstance(node.args[0].value, cst.Attribute)
        and node.args[0].value.attr.value == "shape"
    ):  # fmt: skip
        tensor = node.args[0].value.value
    else:
        return None
    return tensor if isinstance(tensor, cst.Name) else None


def _repeats_a_few_times_or_per_head(call: cst.Call, pattern: einops_patterns.Pattern) -> bool:
    """`repeat(freqs, "... n -> ... (n r)", r=2)`: every new axis of an einops pattern has a
    literal size, FEW_REPEATS copies at most; or `repeat(self.D, "h -> (h p)", p=self.headdim)`:
    a module's own tensor (a parameter) repeated along per-step dims only (`_SMALL_DIM_NAME`).
    The same limits as an expand's (`_repeats_a_few_times`, `_spans_only_small_dims`). Or an
    output with a unit axis, `repeat(mask, "b j -> (b h) () j", h=h)`: shaped to broadcast
    along that axis against a larger tensor (a key mask against the scores), small beside it."""
    positional = [a.value for a in call.args if a.keyword is None]
    if not pattern.new_axes or not positional:
        return False
    if ("1",) in pattern.right:
        return True
    given = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    sizes = [given.get(axis) for axis in pattern.new_axes]
    if any(size is None for size in sizes):
        return False
    numbers = [literal_int(size) for size in sizes]
    if all(n is not None and n >= 0 for n in numbers) and math.prod(numbers) <= FEW_REPEATS:
        return True
    return _of_a_module_tensor(positional[0]) and _named_by_per_step_dims(sizes)


def _small_dims(dims: provenance.ExpandedDims, call: cst.Call) -> bool:
    """The expand's dims repeat its source a few times, span per-step dims only, or repeat
    small matrices."""
    if not dims.candidates:
        return False
    return (
        _repeats_a_few_times(dims)
        or _spans_only_small_dims(dims, call)
        or _repeats_small_matrices(dims)
    )


def _repeats_a_few_times(dims: provenance.ExpandedDims) -> bool:
    """`pos[None, ...].expand(3, -1, -1)`: every dim the expand may broadcast has a literal
    size, and together they repeat the source at most FEW_REPEATS times (coordinate
    triples, RGB, stereo, a guidance pair)."""
    repeats = 1
    for dim in dims.candidates:
        if dims.decimal(dim) is None:
            return False
        repeats *= dims.decimal(dim)
    return repeats <= FEW_REPEATS


def _spans_only_small_dims(dims: provenance.ExpandedDims, call: cst.Call) -> bool:
    """`B.expand(batch_size, num_groups, num_heads // num_groups, state_size)`: every size
    is spelled, by names of dims that count per-step things (batch, heads, groups, layers,
    repeats, the state and head sizes), no sequence, token, spatial or feature length: the
    result is one step's metadata, small beside the activations it is used with. One `-1`
    may keep a dim of the module's own tensor (`self.dt_bias[:, None].expand(-1,
    self.head_dim)`: a per-head parameter, its size fixed by the model, not the input), or the
    one dim of a vector, the only dim the code did not insert, grown by counts alone
    (`head_mask.unsqueeze(0)...expand(num_hidden_layers, -1, -1, -1, -1)`: a copy per layer of
    a vector, however long, is per-token metadata at most; per head_dim it would be an
    activation's size). A `-1` on a dim the code inserted keeps it at size 1
    (`self.A.unsqueeze(0).unsqueeze(-1).expand(num_layers, -1, -1)`). A `-1` on a dim a
    literal view spells by counts alone keeps a count (`key_mask.view(bsz, 1, 1, src_len)
    .expand(-1, num_heads, -1, -1)`: one key vector a batch row, copied per head, the
    layout of torch's multi-head attention: per-token metadata)."""
    unspelled = [d for d, n in enumerate(dims.nodes) if literal_int(n) == -1 and d not in dims.unit]
    counted = [d for d in unspelled if dims.viewed and _named_by_per_step_dims(
        [dims.viewed[d]], _COUNT_DIM_NAME
    )]  # fmt: skip
    unspelled = [d for d in unspelled if d not in counted]
    spelled = [size for size in dims.nodes if literal_int(size) != -1]
    if not unspelled or len(unspelled) == 1 and _of_a_module_tensor(call.func.value):
        return _named_by_per_step_dims(spelled) and not counted
    if len(unspelled) == 1 and len(dims.nodes) - len(dims.inserted) - len(counted) == 1:
        return _named_by_per_step_dims(spelled, _COUNT_DIM_NAME)  # copies of one vector
    return False  # a `-1` keeps a size the code does not spell


def _repeats_small_matrices(dims: provenance.ExpandedDims) -> bool:
    """`w2c.reshape(b, f, 1, 4, 4).expand(b, f, n, 4, 4)`: the dims after the last one the
    expand may broadcast are two or more literal sizes of the source's own (not broadcast),
    together at most FEW_NUMBERS numbers: each broadcast position copies one small matrix (a
    camera, intrinsics, a rotation), a transform beside the data it maps. A vector a position
    (a point, a box) is not: in geometric code the points and boxes are the data (boxes copied
    per class for NMS, point coordinates per ground truth)."""
    last = max(dims.candidates)
    return _a_small_matrix([dims.decimal(d) for d in range(last + 1, len(dims.nodes))])


def _a_small_matrix(sizes: list[int | None]) -> bool:
    """Two or more known sizes of 2 or more, at most FEW_NUMBERS numbers together."""
    if len(sizes) < 2 or any(size is None or size < 2 for size in sizes):
        return False
    return math.prod(sizes) <= FEW_NUMBERS  # type: ignore[arg-type]


def _named_by_per_step_dims(
    sizes: list[cst.BaseExpression], pattern: re.Pattern[str] | None = None
) -> bool:
    """Every size is computed from names of per-step dims only (`pattern`, by default
    `_SMALL_DIM_NAME`)."""
    names: list[str] = []
    for size in sizes:
        spelled = _size_names(size)
        if spelled is None:
            return False
        names += spelled
    matches = (pattern or _SMALL_DIM_NAME).fullmatch
    return bool(names) and all(matches(name) for name in names)


def _of_a_module_tensor(receiver: cst.BaseExpression) -> bool:
    """`self.A[:, None]`, `self.dt_bias.unsqueeze(-1)`: an expand's receiver shaped from an
    attribute of `self` (a parameter or buffer) by indexing or unsqueezing alone."""
    node = receiver
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "unsqueeze"
        ):
            node = node.func.value
        else:
            break
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    )


def _literal_numbers(call: cst.Call) -> bool:
    """`torch.tensor([w])`, `torch.tensor((h, w))`: a few numbers written out, as small as
    an index vector (a grid of them is per-position metadata)."""
    if not call.args or not isinstance(call.args[0].value, (cst.List, cst.Tuple)):
        return False
    elements = call.args[0].value.elements
    return 0 < len(elements) <= 8 and not any(
        isinstance(e, cst.StarredElement) or isinstance(e.value, (cst.List, cst.Tuple))
        for e in elements
    )


def _pattern_of(call: cst.Call) -> einops_patterns.Pattern | None:
    """The parsed pattern of an einops call: its second positional argument or `pattern=`,
    when it is a plain string literal."""
    positional = [a for a in call.args if a.keyword is None]
    keyword = [a for a in call.args if a.keyword is not None and a.keyword.value == "pattern"]
    found = keyword or positional[1:2]
    if not found or found[0].star or not isinstance(found[0].value, cst.SimpleString):
        return None
    text = found[0].value.evaluated_value
    return einops_patterns.parse(text) if isinstance(text, str) else None


def _keeps_positions(node: cst.BaseExpression, kind: str) -> bool:
    """Affine arithmetic, rounding and casts of index vectors (`torch.arange(n) * stride +
    base`, `torch.linspace(0, h, n).round().long()`) still give positions, coordinates the
    code wants; comparisons, masks and other functions do not."""
    if kind == "cast":
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value in _POSITION_METHODS
    operator = getattr(node, "operator", None)
    return isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)) and isinstance(
        operator, _AFFINE
    )


def _call_site(
    node: cst.Call,
    callee: str,
    arguments: list[tuple[cst.Arg, Value]],
    kernels: tuple[str, ...] = (),
) -> CallSite:
    """Describe each argument by position or keyword; after a `*splat` positions are unknown
    (key None), keywords never are; `**kwargs` says nothing."""
    described: list[tuple[int | str | None, cst.BaseExpression, Value]] = []
    position: int | None = 0
    for arg, value in arguments:
        if arg.star == "**":
            continue
        if arg.star == "*":
            position = None
        elif arg.keyword is not None:
            described.append((arg.keyword.value, arg.value, value))
        elif position is None:
            described.append((None, arg.value, value))
        else:
            described.append((position, arg.value, value))
            position += 1
    return CallSite(node, callee, tuple(described), kernels)


def _lambda_params(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params]


def _is_range(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and dotted(node.func) == "range"


def _is_scalar_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _is_scalar_literal(node.expression)
    return isinstance(node, cst.Name) and node.value in ("True", "False", "None")


def _looks_like_tensor_receiver(receiver: cst.BaseExpression, call: cst.Call) -> bool:
    """`x.expand(...)`, but not `self.expand(...)` nor `re.Match.expand("\\1")`."""
    if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"):
        return False
    return not any(
        isinstance(arg.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
        for arg in call.args
    )


def _uniform_update(method: str, arguments: list[tuple[cst.Arg, Value]]) -> bool:
    """An in-place elementwise op with number arguments (`t.mul_(2)`, `t.clamp_(min=0)`): every
    position changes alike, so a copy of a broadcast still repeats its values."""
    return method.removesuffix("_") in torch_ops.ELEMENTWISE_METHODS and all(
        isinstance(value, Scalar) or _is_scalar_literal(arg.value) for arg, value in arguments
    )


# Names that say they count or measure something (`num_experts`, `n_heads`, `token_count`,
# `batch`, `bsz`, `batch_size`, `seq_len`): by convention one number, never a shape. Sizes that
# are often pairs (`kernel_size`, `image_size`, `patch_size`, `window_size`) are not.
_COUNT_NAME = re.compile(
    r"(?:num|n)_\w+|\w+_(?:num|count|len|length)|batch|bsz|seqlen"
    r"|(?!(?:\w+_)?(?:kernel|image|img|patch|window|grid|tile|spatial|input|output|frame)_size$)\w+_size"
)


# Sizes of dims that count per-step things (batch rows, heads, groups, layers, repeats), never a
# sequence, tokens, pixels or features; and with them, the per-head state and head sizes.
_PER_STEP_COUNT = (
    r"(?:b|bs|bsz|batch|batch_size|n_rep|top_?k)"
    r"|(?:(?:num|n)_)?(?:kv_|key_value_|local_)?(?:heads?|groups?|layers|hidden_layers)"
)
_COUNT_DIM_NAME = re.compile(_PER_STEP_COUNT)
_SMALL_DIM_NAME = re.compile(_PER_STEP_COUNT + r"|(?:ssm_)?state_size|d_state|head_dim|headdim")


def _size_names(size: cst.BaseExpression) -> list[str] | None:
    """The names a size is computed from by arithmetic, by their last part in lower case
    (`num_heads // self.num_groups`: `num_heads`, `num_groups`); None when it holds anything
    else (a call, a subscript)."""
    if isinstance(size, cst.Integer):
        return []
    if isinstance(size, (cst.Name, cst.Attribute)):
        name = dotted(size)
        return [name.rsplit(".", 1)[-1].lower()] if name else None
    if isinstance(size, cst.BinaryOperation):
        left, right = _size_names(size.left), _size_names(size.right)
        return None if left is None or right is None else left + right
    return None


def _spells_one_number(node: cst.BaseExpression, number_names: frozenset[str]) -> bool:
    """A size spelled as one number: a literal, `x.shape[0]`, `x.size(0)`, `len(xs)`, a
    product, or a name known to hold a number (`number_names`)."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, (cst.Name, cst.Attribute)) and _COUNT_NAME.fullmatch(
        (dotted(node) or "").rsplit(".", 1)[-1]
    ):
        return True  # `layer.num_local_experts`, `n_rep`: named as a count, never a shape
    if isinstance(node, cst.Name):
        return node.value in number_names
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, (cst.Multiply, cst.FloorDivide, cst.Subtract)):
            return True  # never a shape: a tuple can be added to, not multiplied out
        return _spells_one_number(node.left, number_names) and _spells_one_number(
            node.right, number_names
        )
    if isinstance(node, cst.Subscript):  # `x.shape[0]`, `x.size()[0]`; not `x.shape[1:]`
        indexed = node.value
        reads_shape = (isinstance(indexed, cst.Attribute) and indexed.attr.value == "shape") or (
            isinstance(indexed, cst.Call) and (dotted(indexed.func) or "").endswith(".size")
        )
        return reads_shape and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
    if isinstance(node, cst.Call):  # `len(xs)`, `int(n)`, `x.size(0)`, `max(m, n)`
        func = dotted(node.func) or ""
        if func in ("max", "min") and len(node.args) > 1:
            return all(
                a.keyword is None and not a.star and _spells_one_number(a.value, number_names)
                for a in node.args
            )
        return func in ("len", "int") or (func.endswith(".size") and bool(node.args))
    return False


def _reads_shape(node: cst.BaseExpression) -> bool:
    """`x.shape` or `x.size()`: a tuple of numbers."""
    if isinstance(node, cst.Attribute):
        return node.attr.value == "shape"
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "size"
        and not node.args
    )


def _keeps_every_size(call: cst.Call) -> bool:
    """`expand` whose sizes are all the literals 1 or -1 cannot grow a dim: -1 keeps it, and
    1 is only valid on a dim of size 1 (semantics §0 rule 1 needs size > 1)."""
    if any(a.keyword is not None or a.star for a in call.args):
        return False
    sizes = [a.value for a in call.args]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        sizes = [e.value for e in sizes[0].elements]
    return bool(sizes) and all(literal_int(size) in (1, -1) for size in sizes)


def _narrows_to_one_by_variable(call: cst.Call) -> bool:
    """`t.narrow(d, 0, 1)` inside a loop over dims: the PR #10776 narrowing idiom."""
    args = [a.value for a in call.args if a.keyword is None]
    return (
        len(args) == 3
        and isinstance(args[2], cst.Integer)
        and args[2].evaluated_value == 1
        and not isinstance(args[0], cst.Integer)
    )


def _has_dtype_argument(call: cst.Call, facts: ModuleFacts) -> bool:
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == "dtype":
                return True
            continue
        if _names_dtype(arg.value, facts):
            return True
    return False


def _names_dtype(node: cst.BaseExpression, facts: ModuleFacts) -> bool:
    qualified = facts.imports.resolve(node) or ""
    if qualified.startswith("torch.") and qualified.split(".")[-1] in torch_ops.DTYPE_NAMES:
        return True
    return (dotted(node) or "").split(".")[-1].endswith("dtype")


def _has_literal_zero_stride(call: cst.Call, position: int) -> bool:
    """The strides (the tuple or list at `position`, or `stride=`) hold the literal 0; a
    size of 0 makes an empty tensor, no broadcast."""
    strides = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "stride"]
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > position and not any(a.star for a in positional[: position + 1]):
        strides.append(positional[position].value)
    return any(
        isinstance(value, (cst.Tuple, cst.List))
        and any(isinstance(e.value, cst.Integer) and e.value.evaluated_value == 0 for e in value.elements)
        for value in strides
    )


STARRED = cst.Name("STARRED")  # a `*args` dim we cannot read


def reduction_dim(call: cst.Call, *, functional: bool) -> cst.BaseExpression | None:
    """The `dim` argument of a reduction call (None when it reduces every dim)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in ("dim", "axis"):
            return None if is_none(arg.value) else arg.value
    positional = [a for a in call.args if a.keyword is None]
    if functional:
        positional = positional[1:]
    if not positional:
        return None
    if positional[0].star:
        return STARRED
    return None if is_none(positional[0].value) else positional[0].value


def _is_reduction_call(name: str, call: cst.Call) -> bool:
    """`x.max()` and `x.max(dim)` reduce; `x.max(other)` is elementwise."""
    if name not in torch_ops.DIM_REQUIRED_FOR_TUPLE:
        return True
    positional = [a.value for a in call.args if a.keyword is None]
    if not positional:
        return True
    return isinstance(positional[0], (cst.Integer, cst.UnaryOperation))
