"""Python's scopes for one module: which scope binds each name, which binding a load sees,
whether a name is surely bound where it is read, and fresh names for code a fix adds.

Built from the syntax tree by Python's rules (function, lambda, class and comprehension
scopes; `global` and `nonlocal`; a walrus binds in the enclosing non-comprehension scope; a
comprehension's first iterable belongs to the enclosing scope; class scopes are invisible
to the functions nested in them). Names inside f-strings count like any other load.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import libcst as cst

from stridelint.analysis.names import dotted
from stridelint.analysis.tree import children

_COMPREHENSION_KINDS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})
# Built-ins that introspect or change a scope by name: a fix cannot see what they touch.
_DYNAMIC_BUILTINS = frozenset({"locals", "vars", "eval", "exec"})


@dataclass(frozen=True)
class Binding:
    """One place that binds a name: `kind` is "param", "assign", "augassign", "annassign",
    "for", "with", "except", "import", "def", "class", "walrus", "del", "match" or "comprehension";
    `statement` is the statement holding it; `module` the imported module for `import m`."""

    name: str
    kind: str
    node: cst.CSTNode
    statement: cst.CSTNode | None
    module: str | None = None


@dataclass(eq=False)
class Scope:
    node: cst.CSTNode  # Module, FunctionDef, Lambda, ClassDef or a comprehension
    kind: str  # "module" | "function" | "lambda" | "class" | "comprehension"
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    global_names: set[str] = field(default_factory=set)
    nonlocal_names: set[str] = field(default_factory=set)
    loads: list[cst.Name] = field(default_factory=list)
    children: list[Scope] = field(default_factory=list)
    star_import: bool = False

    def __repr__(self) -> str:
        name = getattr(getattr(self.node, "name", None), "value", "")
        return f"Scope({self.kind} {name})"


class Scopes:
    """The scopes of one module and the questions fixes ask about names."""

    def __init__(self, module: cst.Module) -> None:
        self.module = Scope(module, "module", None)
        self._scope_of: dict[cst.CSTNode, Scope] = {}
        self._statement_of: dict[cst.CSTNode, cst.CSTNode] = {}
        self._parent_block: dict[cst.CSTNode, tuple[cst.CSTNode, int]] = {}
        self._all: list[Scope] = [self.module]
        self._inner: dict[cst.CSTNode, Scope] = {module: self.module}
        self._loads: set[int] = set()
        _Builder(self).module(module)
        self._settle_declarations()
        self._names_below: dict[Scope, frozenset[str]] = {}

    # ---- structure ----------------------------------------------------------------------

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The innermost scope a node is evaluated in (the module for unknown nodes)."""
        return self._scope_of.get(node, self.module)

    def scope_of_function(self, func: cst.FunctionDef | cst.Lambda) -> Scope:
        """The scope a function's body runs in."""
        return self._inner[func]

    def all_scopes(self) -> list[Scope]:
        return list(self._all)

    def names_below(self, scope: Scope) -> frozenset[str]:
        """Every name bound, declared or read in a scope or the scopes nested in it."""
        if scope not in self._names_below:
            names: set[str] = set()
            for inner in _below(scope):
                names |= inner.bindings.keys() | inner.global_names | inner.nonlocal_names
                names |= {load.value for load in inner.loads}
            self._names_below[scope] = frozenset(names)
        return self._names_below[scope]

    # ---- resolution ---------------------------------------------------------------------

    def lookup(self, scope: Scope, name: str) -> Scope | None:
        """The scope whose binding a read of `name` in `scope` sees; None for a built-in (or
        a name bound nowhere)."""
        if name in scope.global_names:
            return self.module if self._module_binds(name) else None
        if name not in scope.nonlocal_names and name in scope.bindings:
            return scope
        outer = scope.parent
        while outer is not None:
            if outer.kind == "class":
                outer = outer.parent
                continue
            if outer.kind == "module":
                return outer if self._module_binds(name) else None
            if name in outer.global_names:
                return self.module if self._module_binds(name) else None
            if name not in outer.nonlocal_names and name in outer.bindings:
                return outer
            outer = outer.parent
        return None

    def is_load(self, node: cst.CSTNode) -> bool:
        """Whether the node is a name read (not an attribute, keyword or binding)."""
        return id(node) in self._loads

    def resolve(self, load: cst.Name) -> Scope | None:
        """The scope whose binding this name load sees (None: a built-in or unbound)."""
        return self.lookup(self.scope_of(load), load.value)

    def loads_of(self, owner: Scope, name: str) -> list[cst.Name]:
        """Every load, in `owner` or a scope nested in it, that sees `owner`'s binding of name."""
        return [
            load
            for inner in _below(owner)
            for load in inner.loads
            if load.value == name and self.lookup(inner, name) is owner
        ]

    def declared_elsewhere(self, owner: Scope, name: str) -> bool:
        """Whether a nested scope declares `nonlocal name` (and so may rebind it when called),
        or `owner` itself declares it global or nonlocal."""
        if name in owner.global_names or name in owner.nonlocal_names:
            return True
        return any(name in inner.nonlocal_names for inner in _below(owner) if inner is not owner)

    def module_bindings(self, name: str) -> list[Binding]:
        return list(self.module.bindings.get(name, ()))

    def free_loads(self, name: str) -> list[cst.Name]:
        """Loads of `name` anywhere that see a module-level binding or a built-in: the reads a
        new module-level binding of `name` would change."""
        return [
            load
            for scope in self._all
            for load in scope.loads
            if load.value == name and self.lookup(scope, name) in (None, self.module)
        ]

    def uses_dynamic_scope(self, scope: Scope) -> bool:
        """Whether the scope (or one nested in it) calls `locals`, `vars`, `eval` or `exec`."""
        for inner in _below(scope):
            for load in inner.loads:
                if load.value in _DYNAMIC_BUILTINS and self.lookup(inner, load.value) is None:
                    return True
        return False

    def is_builtin(self, load: cst.Name) -> bool:
        """Whether the load reads the built-in of that name (no binding shadows it)."""
        return self.resolve(load) is None and hasattr(builtins, load.value)

    def is_module_import(self, load: cst.Name) -> bool:
        """Whether the load reads a module imported (only) by top-level `import` statements."""
        if self.resolve(load) is not self.module:
            return False
        bindings = self.module.bindings.get(load.value, [])
        return all(b.kind == "import" for b in bindings) and self.definitely_bound(load)

    def definitely_bound(self, load: cst.Name) -> bool:
        """Whether the name is surely bound whenever this load runs: a parameter, a built-in,
        a top-level import/def/class/assignment of the module, or a local assigned by a simple
        statement that always runs before the load's statement (and never deleted)."""
        scope = self.scope_of(load)
        owner = self.lookup(scope, load.value)
        if owner is None:
            return hasattr(builtins, load.value) and not self.module.star_import
        bindings = owner.bindings.get(load.value, [])
        if any(b.kind == "del" for b in bindings):
            return False
        if owner is self.module:
            return any(
                b.kind in ("import", "def", "class", "assign", "annassign")
                and self.is_top_level(b.statement)
                for b in bindings
            )
        if any(b.kind == "param" for b in bindings):
            return True
        if owner.kind != "function" or not self._runs_inline_in(scope, owner):
            return False
        statement = self._statement_of.get(load)
        simple = ("assign", "annassign", "import")
        bound_before = {id(b.statement) for b in bindings if b.kind in simple}
        while statement is not None and statement is not owner.node:
            located = self._parent_block.get(statement)
            if located is None:  # an `elif`: its test runs after the `if` statement's
                statement = self._statement_of.get(statement)
                continue
            block, index = located
            if any(id(s) in bound_before for s in _block_body(block)[:index]):
                return True
            statement = self._statement_of.get(block)
        return False

    def is_top_level(self, statement: cst.CSTNode | None) -> bool:
        """Whether a statement stands at the module's top level (runs unconditionally on import)."""
        located = self._parent_block.get(statement) if statement is not None else None
        return located is not None and isinstance(located[0], cst.Module)

    # ---- internals ----------------------------------------------------------------------

    @staticmethod
    def _runs_inline_in(scope: Scope, owner: Scope) -> bool:
        """Whether code of `scope` runs while `owner` runs its statement (a comprehension
        does; a lambda or a nested function runs whenever it is called)."""
        while scope is not owner:
            if scope.kind != "comprehension" or scope.parent is None:
                return False
            scope = scope.parent
        return True

    def _module_binds(self, name: str) -> bool:
        return name in self.module.bindings

    def _settle_declarations(self) -> None:
        """Bindings of a `global` name belong to the module, of a `nonlocal` one to the
        enclosing function that binds it."""
        for scope in self._all:
            for name in scope.global_names & scope.bindings.keys():
                self.module.bindings.setdefault(name, []).extend(scope.bindings.pop(name))
            for name in scope.nonlocal_names & scope.bindings.keys():
                owner = self.lookup(scope, name)
                if owner is not None and owner is not scope:
                    owner.bindings.setdefault(name, []).extend(scope.bindings.pop(name))


def function_scope(func: cst.FunctionDef) -> Scope:
    """The scope of func's body from a table of func alone (a walk of the function, not of
    its module). Its bindings of every name func does not itself declare `global` or
    `nonlocal` are those the module's table gives it: they come from func's code, and a
    nested `nonlocal` of such a name resolves to func or inside it. For a declared name,
    where the binding goes depends on the scopes around func: ask the module's table."""
    return Scopes(cst.Module(body=[func])).scope_of_function(func)


def _below(scope: Scope) -> Iterator[Scope]:
    stack = [scope]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _block_body(block: cst.CSTNode) -> list[cst.CSTNode]:
    body = getattr(block, "body", ())
    return list(body) if isinstance(body, (list, tuple)) else [body]


class _Builder:
    """One pass over the tree recording bindings, declarations and loads per scope."""

    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self.statement: cst.CSTNode | None = None

    def module(self, module: cst.Module) -> None:
        self._block(module, self.scopes.module, owner=None)

    # -- statements --

    def _block(self, block: cst.CSTNode, scope: Scope, owner: cst.CSTNode | None) -> None:
        if owner is not None:
            self.scopes._statement_of[block] = owner
        body = block.body if isinstance(block, (cst.Module, cst.IndentedBlock)) else None
        if body is None:  # SimpleStatementSuite: `if c: a; b`
            self._simple(block, scope, block)
            return
        for index, statement in enumerate(body):
            self.scopes._parent_block[statement] = (block, index)
            self._statement(statement, scope)

    def _suite(self, suite: cst.BaseSuite | None, scope: Scope, owner: cst.CSTNode) -> None:
        if suite is None:
            return
        if isinstance(suite, cst.SimpleStatementSuite):
            self.scopes._statement_of[suite] = owner
            self._simple(suite, scope, owner)
        else:
            self._block(suite, scope, owner)

    def _simple(self, line: cst.CSTNode, scope: Scope, statement: cst.CSTNode) -> None:
        previous, self.statement = self.statement, statement
        for small in line.body:
            self._small(small, scope)
        self.statement = previous

    def _statement(self, statement: cst.CSTNode, scope: Scope) -> None:
        self.scopes._scope_of[statement] = scope
        previous, self.statement = self.statement, statement
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small, scope)
        elif isinstance(statement, cst.FunctionDef):
            self._function(statement, scope)
        elif isinstance(statement, cst.ClassDef):
            self._class(statement, scope)
        elif isinstance(statement, cst.If):
            self._expr(statement.test, scope)
            self._suite(statement.body, scope, statement)
            if isinstance(statement.orelse, cst.If):
                self.scopes._statement_of[statement.orelse] = statement
                self._statement(statement.orelse, scope)
            elif statement.orelse is not None:
                self._suite(statement.orelse.body, scope, statement)
        elif isinstance(statement, cst.For):
            self._expr(statement.iter, scope)
            self._store(statement.target, scope, "for")
            self._suite(statement.body, scope, statement)
            if statement.orelse is not None:
                self._suite(statement.orelse.body, scope, statement)
        elif isinstance(statement, cst.While):
            self._expr(statement.test, scope)
            self._suite(statement.body, scope, statement)
            if statement.orelse is not None:
                self._suite(statement.orelse.body, scope, statement)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                self._expr(item.item, scope)
                if item.asname is not None:
                    self._store(item.asname.name, scope, "with")
            self._suite(statement.body, scope, statement)
        elif isinstance(statement, (cst.Try, cst.TryStar)):
            self._suite(statement.body, scope, statement)
            for handler in statement.handlers:
                if handler.type is not None:
                    self._expr(handler.type, scope)
                if handler.name is not None:
                    self._store(handler.name.name, scope, "except")
                self._suite(handler.body, scope, statement)
            for part in (statement.orelse, statement.finalbody):
                if part is not None:
                    self._suite(part.body, scope, statement)
        elif isinstance(statement, cst.Match):
            self._expr(statement.subject, scope)
            for case in statement.cases:
                self._pattern(case.pattern, scope)
                if case.guard is not None:
                    self._expr(case.guard, scope)
                self._suite(case.body, scope, statement)
        else:  # anything newer: its expressions are loads
            self._expr(statement, scope)
        self.statement = previous

    def _small(self, small: cst.CSTNode, scope: Scope) -> None:
        self.scopes._statement_of[small] = self.statement
        if isinstance(small, cst.Assign):
            self._expr(small.value, scope)
            for target in small.targets:
                self._store(target.target, scope, "assign")
        elif isinstance(small, cst.AnnAssign):
            self._expr(small.annotation, scope)
            if small.value is not None:
                self._expr(small.value, scope)
            self._store(small.target, scope, "annassign")
        elif isinstance(small, cst.AugAssign):
            if isinstance(small.target, cst.Name):
                self._load(small.target, scope)
            self._expr(small.value, scope)
            self._store(small.target, scope, "augassign")
        elif isinstance(small, cst.Import):
            for alias in small.names:
                module = dotted(alias.name) or ""
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self._bind(alias.asname.name.value, scope, "import", alias, module)
                else:
                    root = module.split(".")[0]
                    self._bind(root, scope, "import", alias, root)
        elif isinstance(small, cst.ImportFrom):
            if isinstance(small.names, cst.ImportStar):
                scope.star_import = True
                return
            base = dotted(small.module) if small.module is not None else None
            for alias in small.names:
                name = dotted(alias.name) or ""
                local = name
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local = alias.asname.name.value
                module = f"{base}.{name}" if base and not small.relative else None
                self._bind(local, scope, "import", alias, module)
        elif isinstance(small, cst.Global):
            scope.global_names |= {item.name.value for item in small.names}
        elif isinstance(small, cst.Nonlocal):
            scope.nonlocal_names |= {item.name.value for item in small.names}
        elif isinstance(small, cst.Del):
            self._delete(small.target, scope)
        else:
            self._expr(small, scope)

    def _function(self, func: cst.FunctionDef, scope: Scope) -> None:
        for decorator in func.decorators:
            self._expr(decorator.decorator, scope)
        self._parameters_outside(func.params, scope)
        if func.returns is not None:
            self._expr(func.returns.annotation, scope)
        self._bind(func.name.value, scope, "def", func)
        inner = self._new_scope(func, "function", scope)
        self._parameters_inside(func.params, inner, func)
        previous, self.statement = self.statement, func
        self._suite(func.body, inner, func)
        self.statement = previous

    def _class(self, klass: cst.ClassDef, scope: Scope) -> None:
        for decorator in klass.decorators:
            self._expr(decorator.decorator, scope)
        for arg in (*klass.bases, *klass.keywords):
            self._expr(arg.value, scope)
        self._bind(klass.name.value, scope, "class", klass)
        inner = self._new_scope(klass, "class", scope)
        self._suite(klass.body, inner, klass)

    def _parameters_outside(self, params: cst.Parameters, scope: Scope) -> None:
        for param in _all_params(params):
            if param.default is not None:
                self._expr(param.default, scope)
            if param.annotation is not None:
                self._expr(param.annotation.annotation, scope)

    def _parameters_inside(self, params: cst.Parameters, inner: Scope, owner) -> None:
        for param in _all_params(params):
            self._bind(param.name.value, inner, "param", param, statement=owner)

    def _new_scope(self, node: cst.CSTNode, kind: str, parent: Scope) -> Scope:
        inner = Scope(node, kind, parent)
        parent.children.append(inner)
        self.scopes._all.append(inner)
        self.scopes._inner[node] = inner
        self.scopes._scope_of[node] = parent  # the def itself runs in the outer scope
        return inner

    # -- expressions --

    def _expr(self, node: cst.CSTNode, scope: Scope) -> None:
        # The hottest loop of the table: dispatch on the exact class (LibCST's node classes
        # have no subclasses; isinstance on them goes through ABCMeta) and read children
        # through tree.children (LibCST's `children` rebuilds the node).
        scope_of = self.scopes._scope_of
        statement_of = self.scopes._statement_of
        stack: list[tuple[cst.CSTNode, Scope]] = [(node, scope)]
        while stack:
            current, where = stack.pop()
            scope_of[current] = where
            statement_of.setdefault(current, self.statement)
            kind = type(current)
            if kind is cst.Name:
                self._load(current, where)
            elif kind is cst.Attribute or kind is cst.Arg:
                stack.append((current.value, where))
            elif kind is cst.Lambda:
                self._parameters_outside(current.params, where)
                inner = self._new_scope(current, "lambda", where)
                self._parameters_inside(current.params, inner, self.statement)
                scope_of[current] = where
                stack.append((current.body, inner))
            elif kind in _COMPREHENSION_KINDS:
                self._comprehension(current, where)
            elif kind is cst.NamedExpr:
                stack.append((current.value, where))
                target_scope = where
                while target_scope.kind == "comprehension" and target_scope.parent is not None:
                    target_scope = target_scope.parent
                if isinstance(current.target, cst.Name):
                    scope_of[current.target] = where
                    self._bind(current.target.value, target_scope, "walrus", current.target)
            else:
                stack.extend((child, where) for child in reversed(children(current)))

    def _comprehension(self, node: cst.CSTNode, scope: Scope) -> None:
        first = node.for_in
        self._expr(first.iter, scope)
        inner = self._new_scope(node, "comprehension", scope)
        self.scopes._scope_of[node] = scope
        clause: cst.CompFor | None = first
        while clause is not None:
            if clause is not first:
                self._expr(clause.iter, inner)
            self._store(clause.target, inner, "comprehension")
            for condition in clause.ifs:
                self._expr(condition.test, inner)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self._expr(node.key, inner)
            self._expr(node.value, inner)
        else:
            self._expr(node.elt, inner)

    def _pattern(self, pattern: cst.CSTNode, scope: Scope) -> None:
        stack = [pattern]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.MatchAs):
                if current.name is not None:
                    self._bind(current.name.value, scope, "match", current.name)
                if current.pattern is not None:
                    stack.append(current.pattern)
            elif isinstance(current, cst.MatchStar):
                if current.name is not None:
                    self._bind(current.name.value, scope, "match", current.name)
            elif isinstance(current, cst.MatchMapping):
                if current.rest is not None:
                    self._bind(current.rest.value, scope, "match", current.rest)
                for element in current.elements:
                    self._expr(element.key, scope)
                    stack.append(element.pattern)
            elif isinstance(current, cst.MatchClass):
                self._expr(current.cls, scope)
                stack.extend(p.pattern for p in current.patterns)
                stack.extend(k.pattern for k in current.kwds)
            elif isinstance(current, cst.MatchValue):
                self._expr(current.value, scope)
            else:
                stack.extend(current.children)

    def _load(self, name: cst.Name, scope: Scope) -> None:
        if name.value in ("True", "False", "None"):
            return
        scope.loads.append(name)
        self.scopes._loads.add(id(name))
        self.scopes._scope_of[name] = scope

    def _store(self, target: cst.CSTNode, scope: Scope, kind: str) -> None:
        if isinstance(target, cst.Name):
            self.scopes._scope_of[target] = scope
            self._bind(target.value, scope, kind, target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value, scope, kind)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value, scope, kind)
        else:  # attribute or subscript target: its parts are loads
            self._expr(target, scope)

    def _delete(self, target: cst.CSTNode, scope: Scope) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, scope, "del", target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._delete(element.value, scope)
        else:
            self._expr(target, scope)

    def _bind(
        self, name: str, scope: Scope, kind: str, node: cst.CSTNode, module: str | None = None,
        statement: cst.CSTNode | None = None,
    ) -> None:  # fmt: skip
        binding = Binding(name, kind, node, statement or self.statement, module)
        scope.bindings.setdefault(name, []).append(binding)


def _all_params(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


# ---- fresh names ------------------------------------------------------------------------------


class NameAllocator:
    """Names for the code one round of fixes adds to a module. A local name binds nothing
    any scope of its function already binds or reads, and nothing an earlier fix of the
    round took; a module-level name (a helper, an import alias) is either the module's own
    binding of exactly what the fix needs, or one no scope reads, and in both cases it is
    not shadowed where the fix reads it."""

    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self._locals: dict[Scope, set[str]] = {}
        self._module: dict[str, str] = {}  # name -> what it was taken for this round

    def local(self, scope: Scope, stem: str) -> str:
        """A fresh name for a local of `scope` (a function)."""
        taken = self.scopes.names_below(scope) | self._locals.get(scope, set())
        taken |= self._module.keys()
        for candidate in _numbered(stem):
            if candidate not in taken:
                self._locals.setdefault(scope, set()).add(candidate)
                return candidate
        raise AssertionError("unreachable")

    def module_level(
        self,
        purpose: str,
        candidates: Iterable[str],
        read_in: list[Scope],
        classify: Callable[[str], str],
    ) -> tuple[str, bool]:
        """A module-level name for `purpose`, read in the scopes `read_in`: (name, True) when
        the module already binds it to what the fix needs (`classify` says "ours"), (name,
        False) when the fix must add the binding (`classify` says "free": the module binds
        nothing by that name, or only something the fix may rebind to the same thing)."""
        for candidate in candidates:
            if any(self._shadowed(scope, candidate) for scope in read_in):
                continue
            taken_for = self._module.get(candidate)
            if taken_for is not None:
                if taken_for == purpose:
                    return candidate, classify(candidate) == "ours"
                continue
            verdict = classify(candidate)
            if verdict == "ours":
                self._module[candidate] = purpose
                return candidate, True
            if verdict == "free":
                self._module[candidate] = purpose
                return candidate, False
        raise AssertionError("unreachable")

    def unread(self, name: str) -> bool:
        """Whether no scope reads `name` from the module or the built-ins (so a new
        module-level binding of it changes no existing read)."""
        return not self.scopes.free_loads(name)

    def _shadowed(self, scope: Scope, name: str) -> bool:
        if any(name in taken for s, taken in self._locals.items() if _encloses(s, scope)):
            return True
        return self.scopes.lookup(scope, name) not in (None, self.scopes.module)


def _encloses(outer: Scope, inner: Scope | None) -> bool:
    while inner is not None:
        if inner is outer:
            return True
        inner = inner.parent
    return False


def _numbered(stem: str) -> Iterator[str]:
    yield stem
    counter = 1
    while True:
        yield f"{stem}_{counter}"
        counter += 1
