"""Facts about one module, computed once and shared by every rule.

Finds the Triton kernels, their launch-metadata hooks and the wrappers that launch them,
gathers the evidence about each function's parameters, runs the broadcast dataflow of every
function, and carries facts across calls inside the module (a DEFINITE tensor passed to a
module function; a wrapper passing a broadcast tensor to a kernel whose hook reads it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property

import libcst as cst

from stridelint.analysis import INTERPROCEDURAL_ROUNDS, dtypes, memo, torch_ops
from stridelint.analysis import evidence as param_evidence
from stridelint.analysis.bindings import reads_the_parameter, statement_of
from stridelint.analysis.classes import ClassTable
from stridelint.analysis.dataflow import CallSite, FunctionFlow
from stridelint.analysis.launches import launch_parameters
from stridelint.analysis.names import ImportTable, dotted, iter_statements
from stridelint.analysis.one_line import one_line
from stridelint.analysis.outer_flows import (
    MODULE,
    LambdaFlow,
    ModuleFlow,
    closure_facts,
    function_globals,
    global_facts,
)
from stridelint.analysis.positions import Positions
from stridelint.analysis.scopes import Scopes
from stridelint.analysis.stride_text import reads_stride_attribute
from stridelint.analysis.reference_names import names_a_reference
from stridelint.analysis.strides import StrideHelper, stride_helper
from stridelint.analysis.tree import ParentMap, assigned_names, children
from stridelint.analysis.values import (
    Broadcast, Dense, KernelHandle, Scalar, State, Value, join, repeated_parts,
)
from stridelint.analysis.node_evidence import NodeEvidence
from stridelint.findings import Evidence, Position
from stridelint.source import SourceText

_HOOK_PARAMETERS = ("grid", "kernel", "args")


@dataclass(frozen=True)
class Kernel:
    name: str
    parameters: tuple[str, ...]
    hook: str | None  # the function named by launch_metadata=


class ModuleFacts:
    def __init__(
        self,
        module: cst.Module,
        source: SourceText,
        *,
        broadcast_hints: tuple[str, ...] = (),
        wrapper_decorators: tuple[str, ...] = (),
    ) -> None:
        self.module = module
        self.source = source
        self.broadcast_hints = frozenset(broadcast_hints)
        self.wrapper_decorators = frozenset(wrapper_decorators)
        self.imports = ImportTable(module)
        self.functions: list[cst.FunctionDef] = [
            s for s in iter_statements(module) if isinstance(s, cst.FunctionDef)
        ]
        self.top_functions = {
            s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)
        }
        self.kernels = self._find_kernels()
        self._stride_helpers: dict[str, StrideHelper | None] = {}
        self.hooks = {k.hook for k in self.kernels.values() if k.hook} | {
            f.name.value for f in self.functions if _has_hook_signature(f)
        }
        # function -> parameter -> the dtype every broadcast its callers pass it is shown to
        # have (`A.float()` of an A the caller made float32 is no copy); filled by `flows`.
        self.parameter_dtypes: dict[str, dict[str, str]] = {}
        self._bound_names: dict[cst.CSTNode, frozenset[str]] = {}
        self._documented_dtypes: dict[cst.FunctionDef, dict[str, str]] = {}
        self._documented_shapes: dict[cst.FunctionDef, dict[str, tuple[str, ...]]] = {}
        self._declared_or_used_bool: dict[cst.FunctionDef, frozenset[str]] = {}

    # ---- the functions calls reach ----------------------------------------------------

    @cached_property
    def classes(self) -> ClassTable:
        return ClassTable(self.module)

    def function_key(self, func: cst.FunctionDef) -> str:
        """How calls name `func`: `Class.method` for a method of a module-level class, else
        its own name (module functions; nested ones share the name, as before)."""
        owner = self.classes.owner.get(func)
        return f"{owner}.{func.name.value}" if owner is not None else func.name.value

    def callee(self, key: str) -> tuple[cst.FunctionDef, bool] | None:
        """(the function a call site's `key` names, whether the call passes its first
        parameter itself: a bound method's `self`)."""
        func = self.top_functions.get(key)
        if func is not None:
            return func, False
        method = self.classes.methods.get(key)
        return (method.func, method.bound) if method is not None else None

    def parameter_bound(
        self, site: CallSite, key: int | str | None
    ) -> tuple[cst.FunctionDef, str] | None:
        """(the module function `site` calls, the parameter its argument `key` binds); None
        when it calls no module function or `key` names no parameter (a `*splat` position)."""
        found = self.callee(site.callee)
        if found is None or key is None:
            return None
        callee, bound = found
        params = [p.name.value for p in param_evidence.parameters(callee)][int(bound) :]
        name = params[key] if isinstance(key, int) and key < len(params) else key
        return (callee, name) if isinstance(name, str) and name in params else None

    # ---- positions and text -----------------------------------------------------------

    @cached_property
    def _positions(self) -> Positions:
        """Positions cost more than parsing (a code generation): computed on first use, for
        the statements asked about (positions.py)."""
        return Positions(self.module, self.source.text, lambda: self.parents)

    def position(self, node: cst.CSTNode) -> Position:
        start = self._positions[node].start
        return Position(start.line, start.column + 1)

    def evidence_at(self, node: cst.CSTNode, message: str) -> Evidence:
        """`message` about `node`, its position read when a finding shows it."""
        return NodeEvidence(self, node, message, quotes=False)

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """Character offsets of a node (without its surrounding whitespace)."""
        code_range = self._positions[node]
        start = self.source.offset(code_range.start.line, code_range.start.column)
        end = self.source.offset(code_range.end.line, code_range.end.column)
        return start, end

    def text_of(self, node: cst.CSTNode) -> str:
        start, end = self.span(node)
        return self.source.text[start:end]

    @cached_property
    def parents(self) -> ParentMap:
        """Child -> parent, for the fixes that walk up from a node (computed on demand)."""
        return ParentMap(self.module)

    def snippet(self, node: cst.CSTNode, limit: int = 48) -> str:
        start, end = self.span(node)
        text = one_line(self.source.text[start:end])
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # ---- kernels, hooks, wrappers -----------------------------------------------------

    def _find_kernels(self) -> dict[str, Kernel]:
        kernels = {}
        for func in self.functions:
            hook = None
            is_kernel = False
            for decorator in func.decorators:
                target = decorator.decorator
                call = target if isinstance(target, cst.Call) else None
                name = self.imports.resolve(call.func if call else target)
                if name in torch_ops.KERNEL_DECORATORS:
                    is_kernel = True
                    for arg in call.args if call else ():
                        if arg.keyword and arg.keyword.value == "launch_metadata":
                            hook = dotted(arg.value)
            if is_kernel:
                params = tuple(p.name.value for p in param_evidence.parameters(func))
                kernels[func.name.value] = Kernel(func.name.value, params, hook)
        return kernels

    def is_kernel_name(self, name: str) -> bool:
        """`k[grid](...)` launches a kernel when k is a local Triton kernel or an import."""
        return name in self.kernels or name.split(".")[0] in self.imports.imported

    def is_device_code(self, func: cst.FunctionDef) -> bool:
        return func.name.value in self.kernels

    def reference_function(self, node: cst.CSTNode) -> str | None:
        """The name of the reference implementation that holds node (a function named as one,
        `naive_attn`, `_routing_reference`, `ref_gemm`, or one nested in it), else None:
        code written for clarity, to check a kernel against, where a copy costs nothing
        that matters."""
        current = self.parents.get(node)
        while current is not None:
            if isinstance(current, cst.FunctionDef) and names_a_reference(current.name.value):
                return current.name.value
            current = self.parents.get(current)
        return None

    def memoized_function(self, node: cst.CSTNode, statement: cst.CSTNode | None) -> str | None:
        """The name of the function holding node when it returns a value cached on `self`
        before `statement` (`memo.returns_a_cached_value_before`): the code there runs once per
        cache key. Else None."""
        current = self.parents.get(node)
        while current is not None and not isinstance(current, cst.FunctionDef):
            current = self.parents.get(current)
        if current is None or not memo.returns_a_cached_value_before(current, statement):
            return None
        return current.name.value

    @cached_property
    def wrappers(self) -> frozenset[str]:
        """Functions whose parameters count as POSSIBLE evidence (ARCHITECTURE.md scope)."""
        roots = set(self.hooks)
        for flow in self.flows.values():
            if flow.launches:
                roots.add(flow.caller)
        for func in self.functions:
            for decorator in func.decorators:
                target = decorator.decorator
                name = dotted(target.func if isinstance(target, cst.Call) else target)
                resolved = self.imports.resolve(
                    target.func if isinstance(target, cst.Call) else target
                )
                if name in self.wrapper_decorators or resolved in self.wrapper_decorators:
                    roots.add(func.name.value)
        reached = set(roots)
        frontier = list(roots)
        while frontier:
            name = frontier.pop()
            for flow in self.flows_in(name):
                for site in flow.calls.values():
                    if site.callee not in reached:
                        reached.add(site.callee)
                        frontier.append(site.callee)
        return frozenset(reached)

    def flows_named(self, name: str) -> list[FunctionFlow]:
        """The flows of the functions called `name` (`<module>`: the top-level code)."""
        return [flow for flow in self.flows.values() if flow.name == name]

    def flows_in(self, name: str) -> list[FunctionFlow]:
        """The flows that run in function `name`'s scope: its own and its lambdas'."""
        return [flow for flow in self.flows.values() if flow.caller == name]

    # ---- the dataflow -----------------------------------------------------------------

    @cached_property
    def flows(self) -> dict[cst.CSTNode, FunctionFlow]:
        """Every flow of the module, keyed by the node whose code it follows: each host
        function (FunctionDef), the module's top-level code (the Module) and each lambda."""
        module_flow = self.module_flow
        globals_ = global_facts(self, module_flow) if module_flow is not None else {}
        host_functions = [f for f in self.functions if not self.is_device_code(f)]
        call_facts: dict[str, dict[str, Broadcast | Dense]] = {}
        hook_facts: dict[str, dict[str, Broadcast]] = {}
        return_facts: dict[str, Broadcast | Dense] = {}
        flows: dict[cst.CSTNode, FunctionFlow] = {}
        stale = set(host_functions)
        for _ in range(INTERPROCEDURAL_ROUNDS):
            for func in host_functions:  # a flow whose inputs did not change stays as it was
                if func in stale:
                    flows[func] = self._flow(
                        func, call_facts.get(self.function_key(func), {}), hook_facts, globals_,
                        return_facts,
                    )
            if module_flow is not None:
                flows[self.module] = module_flow
            new_calls, new_hooks = self._propagate(flows)
            new_returns = self._return_summaries(flows)
            new_dtypes = self._argument_dtypes(flows)
            if (new_calls, new_hooks, new_returns, new_dtypes) == (
                call_facts, hook_facts, return_facts, self.parameter_dtypes
            ):  # fmt: skip
                break
            inputs = _changed(call_facts, new_calls) | _changed(self.parameter_dtypes, new_dtypes)
            hooks, returns = _changed(hook_facts, new_hooks), _changed(return_facts, new_returns)
            stale = {
                func for func in host_functions
                if self.function_key(func) in inputs or func.name.value in hooks
                or any(site.callee in returns for site in flows[func].calls.values())
            }  # fmt: skip
            call_facts, hook_facts, return_facts = new_calls, new_hooks, new_returns
            self.parameter_dtypes = new_dtypes
        return {**flows, **self._lambda_flows(list(flows.values()), globals_)}

    @cached_property
    def module_flow(self) -> ModuleFlow | None:
        """The module's top-level code as one flow (None when it is only defs and classes)."""
        if all(isinstance(s, (cst.FunctionDef, cst.ClassDef)) for s in self.module.body):
            return None
        return ModuleFlow(self.module, self, {}).run()  # type: ignore[arg-type]

    def _lambda_flows(
        self, outer: list[FunctionFlow], globals_: dict[str, Broadcast]
    ) -> dict[cst.CSTNode, FunctionFlow]:
        """A flow for each lambda the flows make (and the lambdas inside those)."""
        found: dict[cst.CSTNode, FunctionFlow] = {}
        pending = list(outer)
        while pending:
            enclosing = pending.pop()
            for lam, (made_in, statement) in enclosing.lambdas.items():
                env: dict[str, Value] = dict(self.module_kernels)
                env.update(closure_facts(self, lam, enclosing, made_in, globals_))
                flow = LambdaFlow(  # type: ignore[arg-type]
                    lam, self, env, statement=statement, enclosing=enclosing
                )
                found[lam] = flow.run()
                pending.append(flow)
        return found

    @cached_property
    def scopes(self) -> Scopes:
        """Python's scopes of the module (built only when a fact needs them)."""
        return Scopes(self.module)

    def _flow(
        self,
        func: cst.FunctionDef,
        call_facts: dict[str, Broadcast | Dense],
        hook_facts: dict[str, dict[str, Broadcast]],
        globals_: dict[str, Broadcast],
        return_facts: dict[str, Broadcast | Dense],
    ) -> FunctionFlow:
        env: dict[str, Value] = dict(self.module_kernels)
        env.update(function_globals(self, func, globals_))
        for param in param_evidence.parameters(func):
            env.pop(param.name.value, None)
        for name in param_evidence.scalar_parameters(func):
            env[name] = Scalar()
        for name, found in self.parameter_evidence(func).items():
            env[name] = Broadcast(State.POSSIBLE, (found,))
        for name, fact in call_facts.items():
            env[name] = fact
        hook_args_name = None
        hook_arguments: dict[str, Broadcast] = {}
        if func.name.value in self.hooks:
            params = param_evidence.parameters(func)
            if len(params) >= 3:
                hook_args_name = params[2].name.value
                hook_arguments = dict(hook_facts.get(func.name.value, {}))
                documented = param_evidence.documented_broadcast_names(func, self.evidence_at)
                for name, found in documented.items():
                    hook_arguments.setdefault(name, Broadcast(State.POSSIBLE, (found,)))
                for hint in self.broadcast_hints:
                    hook_arguments.setdefault(hint, self._hint(hint, func))
        flow = FunctionFlow(func, self, env, hook_arguments, hook_args_name, return_facts)
        return flow.run()

    @cached_property
    def module_kernels(self) -> dict[str, KernelHandle]:
        """Module-level names that hold kernels: `KERNELS = {"rows": _rows_kernel}`,
        `_launch = _kernel[(1,)]`. Evaluated once by the same dataflow, over the module's
        top-level simple statements."""
        lines = [s for s in self.module.body if isinstance(s, cst.SimpleStatementLine)]
        if not lines or not self.kernels:
            return {}
        body = cst.FunctionDef(cst.Name("__module_body__"), cst.Parameters(), cst.IndentedBlock(lines))
        flow = FunctionFlow(body, self, {}).run()
        return {n: v for n, v in flow.env.items() if isinstance(v, KernelHandle)}

    def _hint(self, name: str, func: cst.FunctionDef) -> Broadcast:
        message = f"`{name}` is listed in broadcast-hints"
        return Broadcast(State.POSSIBLE, (Evidence(message, self.position(func.name)),))

    def stride_helper(self, name: str) -> StrideHelper | None:
        """The module function `name`, if it returns a parameter's strides (`_strides(mask,
        dim)`); summarized on first ask and remembered."""
        if name not in self._stride_helpers:
            func = self.top_functions.get(name)
            helper = None
            if func is not None and not self.is_device_code(func):
                helper = stride_helper(func)
            self._stride_helpers[name] = helper
        return self._stride_helpers[name]

    @cached_property
    def _mentions_strides(self) -> bool:
        return reads_stride_attribute(self.source.text)

    def parameter_evidence(self, func: cst.FunctionDef) -> dict[str, Evidence]:
        found: dict[str, Evidence] = {}
        sources = [param_evidence.docstring_evidence, param_evidence.jaxtyping_evidence]
        for source in sources:
            for name, item in source(func, self.evidence_at).items():
                found.setdefault(name, item)
        if self._mentions_strides:  # the search walks every comparison: only when it can hit
            checked = param_evidence.stride_check_evidence(func, self.evidence_at, self.stride_helper)
            for name, item in checked.items():
                found.setdefault(name, item)
        names = {p.name.value for p in param_evidence.parameters(func)}
        for hint in self.broadcast_hints & names:
            message = f"`{hint}` is listed in broadcast-hints"
            found.setdefault(hint, Evidence(message, self.position(func.name)))
        return {name: item for name, item in found.items() if name in names}

    def _propagate(
        self, flows: dict[cst.CSTNode, FunctionFlow]
    ) -> tuple[dict[str, dict[str, Broadcast | Dense]], dict[str, dict[str, Broadcast]]]:
        """Facts that flow into callees and hooks from this round's call sites."""
        call_facts: dict[str, dict[str, Broadcast | Dense]] = {}
        hook_facts: dict[str, dict[str, Broadcast]] = {}
        for flow, site, name, expr, value in _broadcast_arguments(self, flows):
            caller = flow.caller
            if isinstance(flow.func, cst.FunctionDef):
                caller = self.function_key(flow.func)
            site_evidence = Evidence(_passes(caller, expr, value, self), self.position(site.call))
            fact = _passed(value, site_evidence)
            known = call_facts.setdefault(site.callee, {})
            known[name] = fact if name not in known else _stronger(known[name], fact)
        for flow in flows.values():
            for site in flow.launches.values():
                for kernel in (self.kernels.get(name) for name in site.kernels):
                    if kernel is None or kernel.hook is None:
                        continue
                    self._propagate_launch(flow.caller, site, kernel, hook_facts)
        return call_facts, hook_facts

    def _argument_dtypes(self, flows: dict[cst.CSTNode, FunctionFlow]) -> dict[str, dict[str, str]]:
        """For each module function's parameter, the one dtype that every broadcast passed to
        it at this round's call sites is shown to have (dtypes.dtype_of, at the call); none
        where one of them is unknown or two differ."""
        seen: dict[str, dict[str, set[str | None]]] = {}
        for _, site, name, expr, _ in _broadcast_arguments(self, flows):
            dtype = dtypes.dtype_of(self, expr, statement_of(self, site.call))
            seen.setdefault(site.callee, {}).setdefault(name, set()).add(dtype)
        known: dict[str, dict[str, str]] = {}
        for callee, by_name in seen.items():
            for name, found in by_name.items():
                dtype = found.pop() if len(found) == 1 else None
                if dtype is not None:
                    known.setdefault(callee, {})[name] = dtype
        return known

    def parameter_dtype(self, name: cst.Name) -> str | None:
        """The dtype `name` has as a parameter of a function that never rebinds it: the one
        every broadcast its callers pass is shown to have (parameter_dtypes), else the one its
        docstring gives it (`evidence.documented_dtypes`)."""
        current = self._function_of_parameter(name)
        if current is None:
            return None
        key = self.function_key(current)
        dtype = self.parameter_dtypes.get(key, {}).get(name.value)
        found = self.callee(key)
        if dtype is None or found is None or found[0] is not current:
            if current not in self._documented_dtypes:
                self._documented_dtypes[current] = param_evidence.documented_dtypes(current)
            return self._documented_dtypes[current].get(name.value)
        return dtype

    def declared_or_used_dtype(self, name: cst.Name, statement: cst.CSTNode | None) -> str | None:
        """"bool" when `name`, loaded in `statement`, reads a parameter annotated as a bool
        tensor (`evidence.annotated_dtypes`) or passed as a mask only a bool tensor is taken
        for (`dtypes.bool_masks_by_use`), even where the function rebinds the name later."""
        current = self.function_around(name)
        if not isinstance(current, cst.FunctionDef) or name.value not in self.bool_parameters(current):
            return None
        return "bool" if reads_the_parameter(self, name, statement) else None

    def bool_parameters(self, func: cst.FunctionDef) -> frozenset[str]:
        """The parameters of `func` annotated as bool tensors or passed as bool-only masks,
        found once per function."""
        if func not in self._declared_or_used_bool:
            self._declared_or_used_bool[func] = dtypes.bool_masks_by_use(self, func) | set(
                param_evidence.annotated_dtypes(func)
            )
        return self._declared_or_used_bool[func]

    def parameter_shape(self, name: cst.Name) -> tuple[str, ...] | None:
        """The sizes the docstring writes for `name`, a parameter of a function that never
        rebinds it (`evidence.documented_shapes`), else None."""
        current = self._function_of_parameter(name)
        if current is None:
            return None
        if current not in self._documented_shapes:
            self._documented_shapes[current] = param_evidence.documented_shapes(current)
        return self._documented_shapes[current].get(name.value)

    def _function_of_parameter(self, name: cst.Name) -> cst.FunctionDef | None:
        """The function `name` is read in, when it never rebinds the name (so a load there
        reads the parameter, or a global), else None (also inside a lambda)."""
        current = self.function_around(name)
        if not isinstance(current, cst.FunctionDef) or name.value in self.bound_names(current.body):
            return None
        return current

    def function_around(self, node: cst.CSTNode) -> cst.FunctionDef | cst.Lambda | None:
        """The innermost function or lambda `node` is in."""
        current = self.parents.get(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            current = self.parents.get(current)
        return current

    def bound_names(self, node: cst.CSTNode) -> frozenset[str]:
        """tree.assigned_names of a node of this module, remembered: the trees never change,
        and finding the assignment a load reads asks it of each earlier statement of each
        enclosing block, per load."""
        bound = self._bound_names.get(node)
        if bound is None:
            bound = self._bound_names[node] = frozenset(assigned_names(node))
        return bound

    def _return_summaries(
        self, flows: dict[cst.CSTNode, FunctionFlow]
    ) -> dict[str, Broadcast | Dense]:
        """What a call of each module function gives its caller, when the function returns a
        broadcast it makes itself (`return mask[:, None].expand(n, -1)`): DEFINITE when every
        way out returns one, else POSSIBLE. A broadcast that only passes through (a parameter
        returned) is not summarized: which callers' values it carries is not known here.
        A function whose every way out returns rows computed from numbers copied per token
        that it is given (`Dense.copied`: a sinusoidal embedding of per-token timesteps) gives
        such rows back to the calls that pass such numbers (`FunctionFlow._call_into`)."""
        summaries: dict[str, Broadcast | Dense] = {}
        for func, flow in flows.items():
            if not isinstance(func, cst.FunctionDef):
                continue
            key = self.function_key(func)
            found = self.callee(key)
            if found is None or found[0] is not func:
                continue
            rows = [v for _, v in flow.returns if isinstance(v, Dense) and v.copied is not None]
            if rows and len(rows) == len(flow.returns) and not _may_fall_off(func):
                summaries[key] = Dense(copied=rows[0].copied, rows=any(v.rows for v in rows))
                continue
            made = [(r, v) for r, v in flow.returns if isinstance(v, Broadcast) and v.local]
            if not made or _is_generator(func):
                continue
            every_way = len(made) == len(flow.returns) and not _may_fall_off(func)
            certain = every_way and all(v.state is State.DEFINITE for _, v in made)
            returned, value = made[0]
            message = f"`{key}` returns the broadcast `{self.snippet(returned.value)}`"
            summaries[key] = Broadcast(
                State.DEFINITE if certain else State.POSSIBLE,
                (Evidence(message, self.position(returned)),) + value.evidence,
                small=all(v.small for _, v in made),
                grid=all(v.grid for _, v in made),
            )
        return summaries

    def _propagate_launch(
        self,
        caller: str,
        site: CallSite,
        kernel: Kernel,
        hook_facts: dict[str, dict[str, Broadcast]],
    ) -> None:
        """What a launch passes for each kernel parameter becomes the hook's `args[param]`."""
        assert kernel.hook is not None
        for param, expr, value in launch_parameters(site, kernel.parameters):
            if not isinstance(value, Broadcast):
                continue
            message = (
                f"{_who(caller)} launches `{kernel.name}` with a possibly broadcast "
                f"`{self.snippet(expr)}` as `{param}`"
            )
            evidence = (Evidence(message, self.position(site.call)),) + value.evidence
            hook_facts.setdefault(kernel.hook, {})[param] = Broadcast(
                State.POSSIBLE, evidence, small=value.small
            )

    def in_scope(self, func: cst.FunctionDef | cst.Lambda | cst.Module, scope: str) -> bool:
        """Whether POSSIBLE findings are reported in this function (a lambda: in the function
        that makes it; top-level code: when it launches kernels itself)."""
        if scope == "all":
            return True
        if isinstance(func, cst.FunctionDef):
            return func.name.value in self.wrappers
        flow = self.flows.get(func)
        return flow is not None and flow.caller in self.wrappers


def _passes(
    caller: str, expr: cst.BaseExpression, value: Broadcast | Dense, facts: ModuleFacts
) -> str:
    """The evidence message of a call site that passes `value` on."""
    if isinstance(value, Dense) and value.copied is not None:
        return f"{_who(caller)} passes numbers copied per token `{facts.snippet(expr)}` here"
    if isinstance(value, Dense):
        return f"{_who(caller)} passes a concatenation of broadcasts `{facts.snippet(expr)}` here"
    certainty = "" if value.state is State.DEFINITE else "possibly "
    return f"{_who(caller)} passes a {certainty}broadcast tensor `{facts.snippet(expr)}` here"


def _passed(value: Broadcast | Dense, site: Evidence) -> Broadcast | Dense:
    """What a parameter holds when a call site passes it `value`: the broadcast (or the
    concatenation's parts, or the copy's) with the site added to its evidence; where it was made
    stays behind."""
    if isinstance(value, Dense) and value.copied is not None:
        copied = value.copied
        carried = replace(copied, evidence=(site,) + copied.evidence, local=False, group=None)
        return replace(value, copied=carried)
    parts = repeated_parts(value)
    assert parts is not None
    carried = Broadcast(
        parts.state, (site,) + parts.evidence, small=parts.small, grid=parts.grid,
        repeated=parts.repeated, rank=parts.rank,
    )
    return Dense(concatenated=carried) if isinstance(value, Dense) else carried


def _stronger(known: Broadcast | Dense, new: Broadcast | Dense) -> Broadcast | Dense:
    """One parameter's fact from two call sites: the surer broadcast; a broadcast at one and
    a concatenation of broadcasts at the other repeats its values either way (`join`)."""
    if isinstance(known, Broadcast) and isinstance(new, Broadcast):
        stronger = new if known.state < new.state else known
        return stronger if known.rank == new.rank else replace(stronger, rank=None)
    if isinstance(known, Dense) and isinstance(new, Dense) and (
        known.copied is not None or new.copied is not None
    ):
        joined = join(known, new)  # rows repeat per token only where both sites copy
        return joined if isinstance(joined, Dense) and joined.copied is not None else known
    if isinstance(known, Dense) and isinstance(new, Dense):
        assert known.concatenated is not None and new.concatenated is not None
        if known.concatenated.rank == new.concatenated.rank:
            return known
        return replace(known, concatenated=replace(known.concatenated, rank=None))
    joined = join(known, new)
    assert isinstance(joined, Broadcast)
    return joined


def _broadcast_arguments(
    facts: ModuleFacts, flows: dict[cst.CSTNode, FunctionFlow]
) -> Iterator[tuple[FunctionFlow, CallSite, str, cst.BaseExpression, Broadcast | Dense]]:
    """Each broadcast, or concatenation of broadcasts (`Dense.concatenated`), a flow passes
    to a parameter of a module function, by the parameter's name: (the calling flow, the
    call, the parameter, the argument's code, its value)."""
    for flow in flows.values():
        for site in flow.calls.values():
            for key, expr, value in site.arguments:
                carried = repeated_parts(value) is not None or (
                    isinstance(value, Dense) and value.copied is not None
                )
                bound = facts.parameter_bound(site, key) if carried else None
                if bound is not None:
                    yield flow, site, bound[1], expr, value


def _changed(before: dict, after: dict) -> set:
    """The keys whose entry differs between two rounds' facts."""
    return {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}


def _who(caller: str) -> str:
    """How messages name the code that calls: `f`, or the module's top-level code."""
    return "top-level code" if caller == MODULE else f"`{caller}`"


def _has_hook_signature(func: cst.FunctionDef) -> bool:
    names = tuple(p.name.value for p in param_evidence.parameters(func))
    return len(names) == 3 and names[0] == "grid" and names[2] == "args"


def _is_generator(func: cst.FunctionDef) -> bool:
    """Whether calling func makes a generator (a `yield` of its own, not of a nested def)."""
    pending: list[cst.CSTNode] = [func.body]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Yield):
            return True
        if not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            pending.extend(children(node))
    return False


def _may_fall_off(func: cst.FunctionDef) -> bool:
    """Whether func may end without a `return` (returning None): its last statement is
    neither a `return` nor a `raise`. Conservative: a final `if` counts as falling off."""
    last = func.body.body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1]
    return not isinstance(last, (cst.Return, cst.Raise))
