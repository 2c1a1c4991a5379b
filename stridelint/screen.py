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

- a *seed* holds a broadcast trigger of its own (the pre-filter's test, with the module's
  stride helpers): the only places a broadcast value can start;
- facts flow forward: from a seed and from the module-level code (always kept) to the
  functions it names (callees, launched kernels, their hooks, stride helpers), transitively;
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

from stridelint.prefilter import (
    bound_names,
    compared_with_zero,
    has_string_with,
    is_stride_read,
    names_a_source,
    reads_stride_name,
)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LINE_BREAK = re.compile(r"\r\n|\n|\r")


@dataclass
class _Unit:
    """What one function (or the module-level rest) holds that the screen asks about."""

    name: str
    node: ast.stmt | None = None
    in_class: bool = False
    hit: bool = False  # a broadcast source, a "broadcast" string, a `#` dim, a hint
    names: set[str] = field(default_factory=set)  # `Name` ids
    attributes: set[str] = field(default_factory=set)  # attribute names
    stride_names: set[str] = field(default_factory=set)
    bound_by_call: dict[str, str] = field(default_factory=dict)
    zero_compared: list[ast.expr] = field(default_factory=list)
    reads_strides: bool = False
    has_import: bool = False

    def mentions(self) -> set[str]:
        return self.names | self.attributes


@dataclass(frozen=True)
class Plan:
    """The screen's answer: no finding is possible (`text` None, `whole` False), or the text to
    analyse (the file's own when `whole`, else the file with the dropped units blanked)."""

    text: str | None
    whole: bool
    kept: int = 0  # units kept
    units: int = 0  # units in the file


def plan(tree: ast.Module, text: str, broadcast_hints: Iterable[str] = ()) -> Plan:
    hints = frozenset(broadcast_hints)
    if hints:  # a hint names a hook's `args` entry in any hook: keep it simple
        return Plan(text, True)
    rest = _Unit("<module>")
    units: list[_Unit] = []
    for statement in tree.body:
        if isinstance(statement, _FUNCTIONS):
            units.append(_scan(_Unit(statement.name, statement), statement, hints))
        elif isinstance(statement, ast.ClassDef):
            for part in (*statement.decorator_list, *statement.bases, *statement.keywords):
                _scan(rest, part, hints)
            for inner in statement.body:
                if isinstance(inner, _FUNCTIONS):
                    units.append(_scan(_Unit(inner.name, inner, in_class=True), inner, hints))
                else:
                    _scan(rest, inner, hints)
        else:
            _scan(rest, statement, hints)
    defined = {u.name for u in units}
    reads_strides = rest.reads_strides or any(u.reads_strides for u in units)
    seeds = [u for u in units if _is_seed(u, defined, reads_strides)]
    rest_is_seed = _is_seed(rest, defined, reads_strides)
    if not seeds and not rest_is_seed:
        return Plan(None, False, 0, len(units))
    kept = _closure(units, seeds, rest)
    if len(kept) == len(units):
        return Plan(text, True, len(kept), len(units))
    masked = _blank(text, [u for u in units if id(u) not in kept])
    if masked is None:
        return Plan(text, True, len(units), len(units))
    return Plan(masked, False, len(kept), len(units))


def _is_seed(unit: _Unit, defined: set[str], reads_strides: bool) -> bool:
    if unit.hit:
        return True
    stride_names = set(unit.stride_names)
    if reads_strides:  # names a module function returned: it may be a stride helper
        stride_names.update(n for n, func in unit.bound_by_call.items() if func in defined)
    return any(reads_stride_name(operand, stride_names) for operand in unit.zero_compared)


def _closure(units: list[_Unit], seeds: list[_Unit], rest: _Unit) -> set[int]:
    """The ids of the units a finding can involve (see the module docstring)."""
    by_name: dict[str, list[_Unit]] = {}
    for unit in units:
        by_name.setdefault(unit.name, []).append(unit)
    kept: set[int] = set()
    # forward: the functions a fact can flow into
    # (and from the module-level code, which is always kept: a table of kernels there brings
    # their launch-metadata hooks, `KERNELS = {"rows": _rows_kernel}`)
    frontier = list(seeds) + [u for u in units if u.has_import]
    frontier.extend(u for name in rest.mentions() for u in by_name.get(name, ()))
    while frontier:
        unit = frontier.pop()
        if id(unit) in kept:
            continue
        kept.add(id(unit))
        frontier.extend(v for name in unit.mentions() for v in by_name.get(name, ()))
    # backward: every function that can reach a kept one by calls (the wrappers' roots), and
    # the module-level functions named like a kept one (a call reaches every function of
    # that name only when a module-level one exists: `flows_named`, `top_functions`)
    kept_names = {u.name for u in units if id(u) in kept}
    changed = True
    while changed:
        changed = False
        for unit in units:
            if id(unit) not in kept and (
                unit.names & kept_names or (not unit.in_class and unit.name in kept_names)
            ):
                kept.add(id(unit))
                kept_names.add(unit.name)
                changed = True
    # the kernels the kept functions and the module-level code launch or list in a table
    launchers = [rest] + [u for u in units if id(u) in kept]
    for unit in launchers:
        for name in unit.mentions():
            for kernel in by_name.get(name, ()):
                if kernel.node.decorator_list:  # type: ignore[union-attr]
                    kept.add(id(kernel))
    return kept


def _scan(unit: _Unit, root: ast.AST, hints: frozenset[str]) -> _Unit:
    """Walk `root` (the pre-filter's test, without stopping at the first hit), recording
    into `unit`."""
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            unit.names.add(node.id)
            if names_a_source(node.id, hints):
                unit.hit = True
            continue
        if kind is ast.Attribute:
            unit.attributes.add(node.attr)
            if names_a_source(node.attr, hints):
                unit.hit = True
        elif kind is ast.Constant:
            value = node.value
            if type(value) is str and ("broadcast" in value.lower() or value in hints):
                unit.hit = True
            continue
        elif kind is ast.alias:
            if names_a_source(node.name, hints) or (
                node.asname is not None and names_a_source(node.asname, hints)
            ):
                unit.hit = True
            continue
        elif kind is ast.Import or kind is ast.ImportFrom:
            unit.has_import = True
        elif kind is ast.arg:
            if names_a_source(node.arg, hints) or (
                node.annotation is not None and has_string_with(node.annotation, "#")
            ):
                unit.hit = True
        elif kind is ast.Assign:
            value = node.value
            if is_stride_read(value):
                unit.stride_names.update(bound_names(node.targets))
            elif type(value) is ast.Call and type(value.func) is ast.Name:
                for name in bound_names(node.targets):
                    unit.bound_by_call[name] = value.func.id
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            unit.names.add(node.name)  # a nested def: calls to it stay inside the unit
        elif kind is ast.Call:
            func = node.func
            if type(func) is ast.Attribute and func.attr == "stride":
                unit.reads_strides = True
        elif kind is ast.Compare:
            unit.zero_compared.extend(compared_with_zero(node))
        elif not isinstance(node, ast.AST):
            continue
        for name in node._fields:
            child = getattr(node, name, None)
            if type(child) is list:
                stack.extend(child)
            elif name != "ctx":
                stack.append(child)
    return unit


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
