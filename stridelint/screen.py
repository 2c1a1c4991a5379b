"""Stage 2 of the engine: which functions of a candidate file can take part in a finding.

The pre-filter (prefilter.py) keeps a file when it holds a broadcast source anywhere; most
such files hold one in a few functions. This screen reads the same syntax tree, function by
function, and blanks out (spaces, newlines kept) every function that no finding can involve,
so LibCST parses, positions and analyses only the rest. Every kept character keeps its line,
column and offset, so positions and fix edits computed on the reduced text are the file's own.

A *unit* is a function at module level or directly in a module-level class; everything else
(module-level statements, class headers and attributes, functions nested in `if`/`try`) is
always kept. What the analysis (analysis/module.py) carries across functions decides what a
kept unit drags in, by name and conservatively (any `Name` or attribute spelled like a unit):

- a *seed* holds a broadcast trigger of its own, as the analysis reads it: an attribute
  named exactly as a source (`.expand`, `torch.broadcast_to`: the analysis matches methods
  and qualified names exactly, so `tl.expand_dims` is none), a name an import binds to a
  source (resolved as the analysis does, not by spelling), a function docstring saying
  "broadcast" (the only strings evidence reads: an error message or a class docstring
  saying it is no seed), a `#` dim in an annotation, a stride compared with 0 (with the
  module's stride helpers): the only places a broadcast value can start;
- facts flow forward: from a seed and from the module-level code (always kept) to the
  functions it names (callees, launched kernels, their hooks, stride helpers), transitively;
  and back from a module-level function that makes a broadcast to the functions that call
  it (it may return the broadcast), which then pass facts on like seeds. Inside classes
  (analysis/classes.py), a method passes facts to the methods it names as attributes
  (`self.helper(...)`) and to the `forward` of every module-level class its class names (its
  submodules), keeping its class's `__init__`, which says what those are; a method that makes
  a broadcast gives it back to the methods naming it, and a `forward` that does to the
  classes naming its class;
- scope flows backward: a POSSIBLE finding is reported only in a function reachable from a
  wrapper root (a launch, a hook, a wrapper decorator), so every unit that names a kept one
  is kept, transitively, with the decorated functions (kernels) it and the module-level code
  name, for `k[grid](...)` to be recognized as a launch;
- a unit holding an `import` is kept: the import table is module-wide.

The analysis knows these facts precisely (module.py: `flows`, `wrappers`, `_propagate`);
this is the screen's own over-approximation of them on the stdlib tree. The engine uses the
reduced text only to learn whether the file has a finding: when it does, it checks the
whole file again (fixes read the whole module: names in use, where helpers go), so the
findings and fixes are the full path's by construction, and the screen only has to never
hide one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from stridelint.analysis import INTERPROCEDURAL_ROUNDS, torch_ops  # no LibCST import
from stridelint.analysis.reference_names import names_a_reference
from stridelint.findings import Evidence, Position
from stridelint.prefilter import (
    bound_names,
    child_fields,
    compared_with_zero,
    has_string_with,
    is_stride_read,
    reads_stride_name,
)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SOURCES = (
    torch_ops.BROADCAST_FUNCTIONS | torch_ops.BROADCAST_TUPLE_FUNCTIONS
    | torch_ops.STRIDED_FUNCTIONS | torch_ops.PATTERN_BROADCAST_FUNCTIONS
    | torch_ops.SOURCE_MODULES
)  # fmt: skip
# `as_strided` -> 2: the position of the stride argument, by the function's last name.
_STRIDE_POSITIONS = {q.rsplit(".", 1)[-1]: n for q, n in torch_ops.STRIDE_POSITIONS.items()}
_LINE_BREAK = re.compile(r"\r\n|\n|\r")
# Attribute names that can make a broadcast: the source methods, and the last names of the
# source functions (`torch.broadcast_to`, `utils.broadcast_all`), matched exactly.
_SOURCE_ATTRIBUTES = torch_ops.BROADCAST_METHODS | frozenset(q.rsplit(".", 1)[-1] for q in _SOURCES)


@dataclass
class _Unit:
    """What one function (or the module-level rest) holds that the screen asks about."""

    name: str
    node: ast.stmt | None = None
    owner: str | None = None  # the module-level class it is a method of
    hit: bool = False  # a broadcast source, a "broadcast" string, a `#` dim, a hint
    names: set[str] = field(default_factory=set)  # `Name` ids
    attributes: set[str] = field(default_factory=set)  # attribute names
    stride_names: set[str] = field(default_factory=set)
    bound_by_call: dict[str, str] = field(default_factory=dict)
    zero_compared: list[ast.expr] = field(default_factory=list)
    reads_strides: bool = False
    imported: set[str] = field(default_factory=set)  # names its import statements bind
    bindings: dict[str, set[str]] = field(default_factory=dict)  # local -> qualified, imports
    subscripted: set[str] = field(default_factory=set)  # names along `a.b(c)[...]` chains
    hook_documented: set[str] = field(default_factory=set)  # seeds only if the name is a hook's
    metadata_names: set[str] = field(default_factory=set)  # `launch_metadata=NAME` values
    source_chains: set[str] = field(default_factory=set)  # `a.b.expand`: a source unless
    # its root is imported and resolves to no source (_resolve_source_names)
    nested_scopes: int = 0  # nested functions and lambdas: they have flows of their own
    outer: _Unit | None = None  # a decorated function's decorators and signature alone,
    # when its body holds no nested function or lambda

    def mentions(self) -> set[str]:
        return self.names | self.attributes

    @property
    def in_class(self) -> bool:
        return self.owner is not None


@dataclass(frozen=True)
class Plan:
    """The screen's answer: no finding is possible (`text` None, `whole` False), or the text to
    analyse (the file's own when `whole`, else the file with the dropped units blanked)."""

    text: str | None
    whole: bool
    kept: int = 0  # units kept
    units: int = 0  # units in the file


def plan(
    tree: ast.Module,
    text: str,
    broadcast_hints: Iterable[str] = (),
    *,
    scope: str = "wrappers",
    wrapper_decorators: Iterable[str] = (),
    reference_seeds: bool = True,
) -> Plan:
    """`reference_seeds=False`: a finding in a reference implementation would be hidden (low
    severity, and no comment names a code for SL901 to read), so the seeds of the
    reference functions whose facts stay among themselves start nothing."""
    hints = frozenset(broadcast_hints)
    if hints:  # a hint names a hook's `args` entry in any hook: keep it simple
        return Plan(text, True)
    rest = _Unit("<module>")
    units: list[_Unit] = []
    bases: dict[str, set[str]] = {}  # module-level class -> the names of its bases
    for statement in tree.body:
        if isinstance(statement, _FUNCTIONS):
            units.append(_scan_function(statement, hints))
        elif isinstance(statement, ast.ClassDef):
            bases[statement.name] = {b.id for b in statement.bases if isinstance(b, ast.Name)}
            for part in (*statement.decorator_list, *statement.bases, *statement.keywords):
                _scan(rest, part, hints)
            for inner in statement.body:
                if isinstance(inner, _FUNCTIONS):
                    units.append(_scan_function(inner, hints, owner=statement.name))
                else:
                    _scan(rest, inner, hints)
        else:
            _scan(rest, statement, hints)
    _without_device_seeds([rest, *units])
    sources = _resolve_source_names([rest, *units])
    if not reference_seeds:
        _without_reference_seeds(units, rest)
    defined = {u.name for u in units}
    reads_strides = rest.reads_strides or any(u.reads_strides for u in units)
    seeds = [u for u in units if _is_seed(u, defined, reads_strides)]
    rest_is_seed = _is_seed(rest, defined, reads_strides)
    if not seeds and not rest_is_seed:
        return Plan(None, False, 0, len(units))
    if rest_is_seed:  # a top-level broadcast reaches every function that reads its name
        return Plan(text, True, len(units), len(units))
    kept = _closure(units, seeds, rest, sources, scope, bool(wrapper_decorators), bases)
    if len(kept) == len(units):
        return Plan(text, True, len(kept), len(units))
    masked = _blank(text, [u for u in units if id(u) not in kept])
    if masked is None:
        return Plan(text, True, len(units), len(units))
    return Plan(masked, False, len(kept), len(units))


def _resolve_source_names(units: list[_Unit]) -> set[str]:
    """A bare name starts a broadcast when an import anywhere in the module binds it to one of
    the analysis's sources, whatever its spelling (`from torch import broadcast_to as bt`):
    the analysis resolves a call's name through the module's imports (names.py:
    ImportTable), never by spelling, so `expand_h0` imported from elsewhere, a local
    `x_expanded` or a parameter is no source. Marks the units that name one; returns the
    names."""
    sources: set[str] = set()
    bindings: dict[str, set[str]] = {}
    for unit in units:
        sources.update(local for local, targets in unit.bindings.items() if targets & _SOURCES)
        for local, targets in unit.bindings.items():
            bindings.setdefault(local, set()).update(targets)
    for unit in units:
        read = unit if unit.outer is None else unit.outer
        if read.names & sources or any(_may_make(c, bindings) for c in read.source_chains):
            unit.hit = True
    return sources


def _may_make(chain: str, bindings: dict[str, set[str]]) -> bool:
    """Whether `a.b.expand(...)` can start a broadcast as the analysis reads the call
    (dataflow.py `_call`): a function when its root is imported (`tl.broadcast_to` is
    `triton.language.broadcast_to`, no source), else a method named as a source. With the
    root imported more than once, any of its targets may be the one the table keeps."""
    root, _, rest = chain.partition(".")
    targets = bindings.get(root)
    if not targets:  # `prompt_embeds.repeat`: a method, a tensor's copy, no einops `repeat`
        return rest.rpartition(".")[2] in torch_ops.BROADCAST_METHODS
    return any(f"{target}.{rest}" in _SOURCES for target in targets)


def _without_device_seeds(units: list[_Unit]) -> None:
    """A kernel's body is device code, which the analysis never runs a flow over
    (module.py: `is_device_code`): a source, a docstring or a stride test in it starts
    nothing. A kernel is what `_find_kernels` finds: a decorator resolving through the
    module's imports to a kernel decorator, whichever import of its root name the table
    keeps. Such a unit keeps the seeds of its decorators and signature only (`outer`);
    one with a nested function or lambda (flows of their own) keeps all. A docstring that
    documents names for a hook's `args` only is a seed where the function may be a hook,
    i.e. a kernel names it as its `launch_metadata`."""
    bindings: dict[str, set[str]] = {}
    hooks: set[str] = set()
    for unit in units:
        for local, targets in unit.bindings.items():
            bindings.setdefault(local, set()).update(targets)
        hooks.update(unit.metadata_names)
    for unit in units:
        if unit.outer is not None and _is_kernel(unit.node, bindings):
            outer = unit.outer
            unit.hit = outer.hit
            unit.zero_compared = outer.zero_compared
            unit.stride_names = outer.stride_names
            unit.bound_by_call = outer.bound_by_call
            unit.hook_documented = outer.hook_documented
        else:
            unit.outer = None
        if unit.hook_documented & hooks:
            unit.hit = True


def _without_reference_seeds(units: list[_Unit], rest: _Unit) -> None:
    """Every finding inside a function named as a reference implementation (`naive_attn`,
    `ref_gemm`: module.py `reference_function`) is low severity (rules/common.py). A
    group of them that names no other function or kernel (no call facts, launches or
    hooks leave it) and that nothing else names (no caller receives a return) keeps its
    broadcasts, and so its findings, to itself: their seeds start nothing."""
    if not any(u.hit or u.zero_compared for u in units):
        return  # nothing to drop
    group = {id(u): u for u in units if names_a_reference(u.name)}
    changed = bool(group)
    while changed:
        outside = [u for u in units if id(u) not in group]
        outside_names = {u.name for u in outside}
        outside_mentions = rest.mentions().union(*(u.mentions() for u in outside))
        leaving = [
            key for key, u in group.items()
            if u.name in outside_mentions or u.mentions() & outside_names
        ]  # fmt: skip
        for key in leaving:
            del group[key]
        changed = bool(leaving)
    for unit in group.values():
        unit.hit = False
        unit.zero_compared = []


def _is_kernel(func: ast.stmt | None, bindings: dict[str, set[str]]) -> bool:
    for decorator in getattr(func, "decorator_list", ()):
        name = _dotted(decorator.func if type(decorator) is ast.Call else decorator)
        if name is None:
            continue
        root, _, rest = name.partition(".")
        targets = bindings.get(root)
        if targets and all(
            (f"{target}.{rest}" if rest else target) in torch_ops.KERNEL_DECORATORS
            for target in targets
        ):
            return True
    return False


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` as a string, or None (names.dotted, on the stdlib tree)."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _is_seed(unit: _Unit, defined: set[str], reads_strides: bool) -> bool:
    if unit.hit:
        return True
    stride_names = set(unit.stride_names)
    if reads_strides:  # names a module function returned: it may be a stride helper
        stride_names.update(n for n, func in unit.bound_by_call.items() if func in defined)
    return any(reads_stride_name(operand, stride_names) for operand in unit.zero_compared)


def _closure(
    units: list[_Unit],
    seeds: list[_Unit],
    rest: _Unit,
    sources: set[str],
    scope: str,
    wrapper_decorators: bool,
    bases: dict[str, set[str]],
) -> set[int]:
    """The ids of the units a finding can involve (see the module docstring)."""
    by_name: dict[str, list[_Unit]] = {}
    by_owner: dict[str, list[_Unit]] = {}
    for unit in units:
        by_name.setdefault(unit.name, []).append(unit)
        if unit.owner is not None:
            by_owner.setdefault(unit.owner, []).append(unit)
    lineage = {owner: _lineage(owner, bases) for owner in bases}
    # attribute -> the module-level classes its constructor names where it assigns it
    holds = {
        owner: _submodule_attributes(
            [u for u in by_owner.get(owner, ()) if u.name == "__init__"], set(by_owner)
        )
        for owner in bases
    }
    kept: set[int] = set()

    depth_of: dict[int, int] = {}  # the fewest calls facts take to reach a followed unit

    def forward(start: list[tuple[_Unit, bool]], depth: int = 0) -> None:
        """Facts reach module-level functions by bare-name calls (`top_functions`), kernels
        by any name or attribute (`k[grid]`, `self._kernel[grid]`, tables), and hooks and
        kernel helpers by a kernel's decorator (`launch_metadata=hook`). Inside classes they
        go as far as the analysis carries them: a call level a round (INTERPROCEDURAL_ROUNDS)."""
        frontier = [(unit, whole, depth) for unit, whole in start]
        while frontier:
            unit, whole, at = frontier.pop()
            if id(unit) in kept and not whole:
                continue
            if whole and depth_of.get(id(unit), at + 1) <= at:
                continue
            kept.add(id(unit))
            # a hook gets facts from launches and passes them on: follow it whole
            frontier.extend(
                (v, True, at + 1) for n in _decorator_mentions(unit) for v in by_name.get(n, ())
            )
            if not whole:
                continue
            depth_of[id(unit)] = at
            for name in unit.names:
                frontier.extend((v, True, at + 1) for v in by_name.get(name, ()) if not v.in_class)
            if unit.owner is not None and at + 1 < INTERPROCEDURAL_ROUNDS:
                for name in unit.attributes:  # `self.helper(...)`
                    frontier.extend(
                        (v, True, at + 1) for v in by_name.get(name, ())
                        if v.owner in lineage[unit.owner]
                    )  # fmt: skip
                submodules = unit.attributes & holds[unit.owner].keys()
                if submodules:  # a submodule's forward; the constructor says what it is
                    frontier.extend(
                        (v, False, at) for v in by_owner[unit.owner] if v.name == "__init__"
                    )
                for name in submodules:
                    for owner in holds[unit.owner][name]:
                        frontier.extend(
                            (v, True, at + 1) for v in by_owner[owner] if v.name == "forward"
                        )
            for name in unit.mentions():
                frontier.extend((v, False, at) for v in by_name.get(name, ()) if _decorated(v))

    forward([(u, True) for u in seeds] + [(rest, True)])
    # a call of a function that makes a broadcast may give it back (module.py's return
    # summaries, a round later): its callers hold one as if they made it
    makers = {
        u.name for u in seeds
        if not u.in_class and (u.attributes & _SOURCE_ATTRIBUTES or u.names & sources)
    }  # fmt: skip
    forward([(u, True) for u in units if u.names & makers], depth=1)
    # a method that makes one gives it back to `self.maker(...)`, and a forward that makes one
    # to the classes that may hold its class as a submodule
    method_makers = [
        u for u in seeds
        if u.in_class and (u.attributes & _SOURCE_ATTRIBUTES or u.names & sources)
        and _may_return_a_source(u.node, sources)  # type: ignore[arg-type]
    ]  # fmt: skip
    made = {(u.owner, u.name) for u in method_makers}
    holders = {u.owner for u in method_makers if u.name == "forward"}
    forward([
        (u, True) for u in units
        if u.in_class and (
            any((owner, name) in made for owner in lineage[u.owner] for name in u.attributes)
            or any(holds[u.owner].get(name, set()) & holders for name in u.attributes)
        )
    ], depth=1)  # fmt: skip
    kept.discard(id(rest))
    if scope != "all":
        for unit in _scope_path(units, kept, rest, wrapper_decorators):
            forward([(unit, False)])
            kernels = [v for n in unit.mentions() for v in by_name.get(n, ()) if _decorated(v)]
            forward([(v, False) for v in kernels])
    # a kernel that names a kept hook in its decorator makes it a hook (`hooks`)
    kept_names = {u.name for u in units if id(u) in kept}
    forward([(u, False) for u in units if _decorator_mentions(u) & kept_names])
    # a nested import binds its name module-wide (the import table): keep the function
    # holding it when kept code reads that name
    changed = True
    while changed:
        read = rest.mentions().union(*(u.mentions() for u in units if id(u) in kept))
        added = [u for u in units if id(u) not in kept and u.imported & read]
        forward([(u, False) for u in added])
        changed = bool(added)
    return kept


def _may_return_a_source(func: ast.FunctionDef | ast.AsyncFunctionDef, sources: set[str]) -> bool:
    """Whether a return of `func` may be a view of a broadcast it makes, which is all a return
    summary carries (module.py): a returned value whose chain of methods, attributes and
    subscripts (`m[:, None].expand(...).transpose(1, 2)`) holds a source, or starts at a name
    assigned such a value; an elementwise result or a call taking it as an argument is none."""
    made: set[str] = set()
    kinds = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)
    assigns = [node for node in ast.walk(func) if isinstance(node, kinds) and node.value]
    changed = True
    while changed:
        changed = False
        for node in assigns:
            if not _makes(node.value, made, sources):  # type: ignore[arg-type]
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and name.id not in made:
                        made.add(name.id)
                        changed = True
    returns = [node.value for node in ast.walk(func) if isinstance(node, ast.Return)]
    return any(value is not None and _makes(value, made, sources) for value in returns)


def _makes(value: ast.expr, made: set[str], sources: set[str]) -> bool:
    """A source on `value`'s chain of receivers, or a chain that starts at a name in `made`;
    each branch of a conditional or element of a tuple on its own."""
    if isinstance(value, ast.IfExp):
        return _makes(value.body, made, sources) or _makes(value.orelse, made, sources)
    if isinstance(value, (ast.Tuple, ast.List)):
        return any(_makes(e, made, sources) for e in value.elts)
    node: ast.expr = value
    while True:
        if isinstance(node, ast.Attribute) and node.attr in _SOURCE_ATTRIBUTES:
            return True
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            node = node.value
        elif isinstance(node, ast.Name):
            return node.id in made or node.id in sources
        else:
            return False


def _submodule_attributes(inits: list[_Unit], classes: set[str]) -> dict[str, set[str]]:
    """attribute -> the module-level classes named where a constructor assigns `self.attribute`
    or appends to it (`self.blocks = nn.ModuleList([Block() ...])`, `self.blocks.append(
    Block())`): the classes whose forward calling it may run (analysis/classes.py, read
    by mention here)."""
    found: dict[str, set[str]] = {}
    for init in inits:
        for node in ast.walk(init.node):  # type: ignore[arg-type]
            targets: list[ast.expr] = []
            value: ast.AST | None = None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets, value = [node.target], node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                targets, value = [node.func.value], node
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                    and value is not None
                ):
                    named = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & classes
                    if named:
                        found.setdefault(target.attr, set()).update(named)
    return found


def _lineage(owner: str, bases: dict[str, set[str]]) -> set[str]:
    """A class and its module-level bases, transitively: where `self.name` may be defined."""
    found: set[str] = set()
    pending = [owner]
    while pending:
        current = pending.pop()
        if current in found or current not in bases:
            continue
        found.add(current)
        pending.extend(bases[current])
    return found


def _scope_path(
    units: list[_Unit], kept: set[int], rest: _Unit, wrapper_decorators: bool
) -> list[_Unit]:
    """The functions on a call path from a wrapper root to a kept function: a POSSIBLE finding
    is reported only in a function whose name the roots reach through calls to module-level
    functions (`wrappers`, by name: every function of a reached name)."""
    top_level = {u.name for u in units if not u.in_class}
    # names that reach a kept function's name
    reaching = {u.name for u in units if id(u) in kept}
    changed = True
    while changed:
        changed = False
        for unit in units:
            if unit.name not in reaching and unit.names & reaching & top_level:
                reaching.add(unit.name)
                changed = True
    # the roots among them, and what they reach inside that set
    launchable = {u.name for u in units if _decorated(u)} | rest.names | rest.imported
    launchable.update(*(u.imported for u in units))
    hooks = set().union(*(_decorator_mentions(u) for u in units))
    frontier = [
        u for u in units
        if u.name in reaching and (
            u.subscripted & launchable or u.name in hooks or _has_hook_signature(u)
            or (wrapper_decorators and _decorated(u))
        )
    ]  # fmt: skip
    on_path: dict[int, _Unit] = {}
    while frontier:
        unit = frontier.pop()
        if id(unit) in on_path:
            continue
        on_path[id(unit)] = unit
        for name in unit.names & reaching & top_level:
            frontier.extend(v for v in units if v.name == name)
    return list(on_path.values())


def _has_hook_signature(unit: _Unit) -> bool:
    arguments = unit.node.args  # type: ignore[union-attr]
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    return len(names) == 3 and names[0] == "grid" and names[2] == "args"


def _decorated(unit: _Unit) -> bool:
    """Maybe a kernel: the screen does not resolve decorators."""
    return bool(getattr(unit.node, "decorator_list", None))


def _decorator_mentions(unit: _Unit) -> set[str]:
    names: set[str] = set()
    for decorator in getattr(unit.node, "decorator_list", ()):
        for node in ast.walk(decorator):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
    return names


def _scan_function(
    func: ast.FunctionDef | ast.AsyncFunctionDef, hints: frozenset[str], owner: str | None = None
) -> _Unit:
    """A unit; for a decorated function (maybe a kernel), its decorators and signature
    scanned apart too (`outer`: what stays a seed if its body is device code)."""
    unit = _scan(_Unit(func.name, func, owner=owner), func, hints)
    if func.decorator_list:
        outer = _Unit(func.name, func, owner=owner)
        for part in (*func.decorator_list, func.args, func.returns):
            if part is not None:
                _scan(outer, part, hints)
        if outer.nested_scopes == unit.nested_scopes:  # none in the body (a lambda in
            unit.outer = outer  # `triton.heuristics` is the decorator's, kept with it)
    return unit


def _scan(unit: _Unit, root: ast.AST, hints: frozenset[str]) -> _Unit:
    """Walk `root` (the pre-filter's walk, without stopping at the first hit), recording
    into `unit`."""
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            unit.names.add(node.id)
            continue  # a source only if an import binds it to one (_resolve_source_names)
        if kind is ast.Attribute:
            unit.attributes.add(node.attr)
            if node.attr in hints:
                unit.hit = True
            elif node.attr in _SOURCE_ATTRIBUTES:
                chain = _dotted(node)  # `torch.broadcast_to`, `tl.broadcast_to`: resolved
                if chain is None:  # later; `f(x).expand`: a method, a source by its name
                    unit.hit = unit.hit or node.attr in torch_ops.BROADCAST_METHODS
                else:
                    unit.source_chains.add(chain)
        elif kind is ast.Constant:
            if type(node.value) is str and node.value in hints:
                unit.hit = True
            continue
        elif kind is ast.alias:  # what it binds is a source where it is used
            unit.imported.add(node.asname or node.name.split(".")[0])
            continue
        elif kind is ast.arg:  # its name is a local binding: only its annotation can tell
            if node.annotation is not None and has_string_with(node.annotation, "#"):
                unit.hit = True
        elif kind is ast.AnnAssign:
            if has_string_with(node.annotation, "#"):
                unit.hit = True
        elif kind is ast.Import:
            for alias in node.names:
                if alias.asname is not None:
                    unit.bindings.setdefault(alias.asname, set()).add(alias.name)
                else:
                    top = alias.name.split(".")[0]
                    unit.bindings.setdefault(top, set()).add(top)
        elif kind is ast.ImportFrom:
            if not node.level and node.module:
                for alias in node.names:
                    local = alias.asname or alias.name
                    unit.bindings.setdefault(local, set()).add(f"{node.module}.{alias.name}")
        elif kind is ast.Assign:
            value = node.value
            if is_stride_read(value):
                unit.stride_names.update(bound_names(node.targets))
            elif type(value) is ast.Call and type(value.func) is ast.Name:
                for name in bound_names(node.targets):
                    unit.bound_by_call[name] = value.func.id
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            unit.names.add(node.name)  # a nested def: calls to it stay inside the unit
            unit.nested_scopes += node is not root
            seed = _docstring_seed(node)
            if seed is None:
                unit.hook_documented.add(node.name)
            elif seed:
                unit.hit = True
        elif kind is ast.Lambda:
            unit.nested_scopes += 1
        elif kind is ast.keyword:
            if node.arg == "launch_metadata" and type(node.value) is ast.Name:
                unit.metadata_names.add(node.value.id)
        elif kind is ast.Call:
            func = node.func
            if type(func) is ast.Attribute and func.attr == "stride":
                unit.reads_strides = True
            elif type(func) is ast.Attribute and (
                func.attr == "expand" and _keeps_every_size(node)
                or func.attr in _STRIDE_POSITIONS
                and not _has_literal_zero_stride(node, _STRIDE_POSITIONS[func.attr])
            ):
                # `torch.arange(n).expand((1, -1))` grows no dim, `torch.empty_strided(s, t)`
                # has no stride the code spells 0: no source (dataflow.py)
                stack.append(func.value)
                stack.extend(node.args)
                stack.extend(node.keywords)
                continue
        elif kind is ast.Compare:
            unit.zero_compared.extend(compared_with_zero(node))
        elif kind is ast.Subscript:
            unit.subscripted.update(_chain_names(node.value))
        elif not isinstance(node, ast.AST):
            continue
        for name in child_fields(kind):
            child = getattr(node, name, None)
            if type(child) is list:
                stack.extend(child)
            elif child is not None:
                stack.append(child)
    return unit


def _has_literal_zero_stride(call: ast.Call, position: int) -> bool:
    """The analysis's `_has_literal_zero_stride` on the interpreter's tree: the tuple or
    list at `position` (no star before it) or given as `stride=` holds the literal 0."""
    passed = [k.value for k in call.keywords if k.arg == "stride"]
    positional = call.args
    if len(positional) > position and not any(type(a) is ast.Starred for a in positional[: position + 1]):
        passed.append(positional[position])
    return any(
        type(value) in (ast.Tuple, ast.List) and any(_is_zero(e) for e in value.elts)  # type: ignore[attr-defined]
        for value in passed
    )


def _is_zero(element: ast.expr) -> bool:
    """An element that is the integer literal 0 (LibCST's `Integer`; a starred one too)."""
    value = element.value if type(element) is ast.Starred else element  # type: ignore[attr-defined]
    return type(value) is ast.Constant and _literal_int(value) == 0  # not `-0`, as LibCST


def _keeps_every_size(call: ast.Call) -> bool:
    """The analysis's `_keeps_every_size` on the interpreter's tree: an `expand` whose sizes
    are all the literals 1 or -1 (as arguments or one tuple or list) grows no dim."""
    if call.keywords or any(type(a) is ast.Starred for a in call.args):
        return False
    sizes = call.args
    if len(sizes) == 1 and type(sizes[0]) in (ast.Tuple, ast.List):
        sizes = sizes[0].elts  # type: ignore[attr-defined]
    return bool(sizes) and all(_literal_int(size) in (1, -1) for size in sizes)


def _literal_int(node: ast.expr) -> int | None:
    """`literals.literal_int` on the interpreter's tree: `3` or `-1`, else None."""
    negated = type(node) is ast.UnaryOp and type(node.op) is ast.USub  # type: ignore[attr-defined]
    literal = node.operand if negated else node  # type: ignore[attr-defined]
    if type(literal) is not ast.Constant or type(literal.value) is not int:  # not a bool
        return None
    return -literal.value if negated else literal.value


def _docstring_seed(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool | None:
    """Whether the docstring gives a name POSSIBLE evidence as the analysis reads it
    (analysis/evidence.py, run on a LibCST function made of this one's docstring and
    parameters, so the reading is the analysis's own): True when a parameter's entry or a
    line quoting it says "broadcast" (or a hook-shaped signature documents any name);
    None when it documents only other names, which the analysis reads for a hook's `args`
    (a seed if a kernel names the function as its hook); False otherwise."""
    if not _docstring_says_broadcast(func):
        return False
    docstring = ast.get_docstring(func, clean=False)
    arguments = func.args
    params = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    if docstring is None or not all(p.isascii() for p in params):
        return True  # not a plain string (LibCST reads no f-string); names NFKC may change
    import libcst as cst

    from stridelint.analysis import evidence

    try:
        made = cst.FunctionDef(
            cst.Name("_"),
            cst.Parameters(params=[cst.Param(cst.Name(p)) for p in params]),
            cst.IndentedBlock(
                [cst.SimpleStatementLine([cst.Expr(cst.SimpleString(repr(docstring)))])]
            ),
        )
        if evidence.docstring_evidence(made, _nowhere):
            return True
        if len(params) < 3 or not evidence.documented_broadcast_names(made, _nowhere):
            return False
    except Exception:  # a node LibCST will not make: read the docstring as a seed
        return True
    return True if params[0] == "grid" and params[2] == "args" and len(params) == 3 else None


def _nowhere(node: object, message: str) -> Evidence:
    """Positions are not needed to know whether evidence exists."""
    return Evidence(message, Position(1, 1))


def _docstring_says_broadcast(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The docstring evidence reads (a parameter's entry, a hook's `args` entry): the first
    statement, a string (an f-string too, to be safe), saying "broadcast" anywhere."""
    first = func.body[0] if func.body else None
    if type(first) is not ast.Expr:
        return False
    return any(
        type(inner) is ast.Constant and type(inner.value) is str
        and "broadcast" in inner.value.lower()
        for inner in ast.walk(first.value)
    )  # fmt: skip


def _chain_names(node: ast.expr) -> set[str]:
    """`KERNELS.get(axis)` -> {KERNELS, get}: what a subscripted value is reached through."""
    names = set()
    while True:
        if isinstance(node, ast.Name):
            names.add(node.id)
            return names
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return names


def _blank(text: str, dropped: list[_Unit]) -> str | None:
    """The text with each dropped unit's lines turned to spaces (a method leaves `0` on its
    first line, so a class body never ends up empty); None when a unit shares a line with
    other code or the text has line breaks the screen does not count like the parser."""
    if "\r" in text.replace("\r\n", ""):
        return None
    pieces = _LINE_BREAK.split(text)
    breaks = _LINE_BREAK.findall(text)
    for unit in dropped:
        node = unit.node
        assert node is not None
        first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1  # type: ignore[attr-defined]
        last = node.end_lineno - 1  # type: ignore[operator]
        start_line = pieces[first]
        indent = len(start_line) - len(start_line.lstrip(" \t\f"))
        if indent != node.col_offset or start_line[indent:indent + 1] not in ("@", "d", "a"):
            return None
        try:
            tail = pieces[last].encode("utf-8")[node.end_col_offset:].decode("utf-8")  # type: ignore[misc]
        except UnicodeError:
            return None
        if tail.strip() and not tail.lstrip().startswith("#"):
            return None
        for index in range(first, last + 1):
            pieces[index] = " " * len(pieces[index])
        if unit.in_class:
            line = pieces[first]
            pieces[first] = start_line[:indent] + "0" + line[indent + 1:]
    out = []
    for index, piece in enumerate(pieces):
        out.append(piece)
        if index < len(breaks):
            out.append(breaks[index])
    return "".join(out)
