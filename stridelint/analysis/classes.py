"""Which method of this module a call inside a method runs: `self.helper(x)`, a submodule
`self.norm(x)`, one block of a `ModuleList` (`for block in self.blocks: block(x)`).

Model code is classes: a method builds the expanded mask (`return d.expand(b, h, n, n)`) and
another class's `forward` compares it, reached through a submodule the constructor made. The
dataflow carries facts along these calls as along calls of module functions (module.py); this
table says where each call goes, from the code alone: the methods a module-level class and its
module-level bases define, and the submodules its `__init__` assigns to `self` from classes of
this module. A name the code binds two ways (two classes, or an attribute also rebound
elsewhere in `__init__`) goes nowhere: the call is left unknown, as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from stridelint.analysis.literals import is_none
from stridelint.analysis.names import dotted

# Calling an nn.Module instance runs its forward.
_CALLED = "forward"
_MODULE_LISTS = frozenset({"ModuleList", "nn.ModuleList", "torch.nn.ModuleList"})
_AMBIGUOUS = ""
_PARAMETERS = frozenset({"Parameter", "nn.Parameter", "torch.nn.Parameter"})
_PARAMETER_KINDS = ({"parameter"}, {"parameter", "none"})  # an optional parameter may be None


@dataclass(frozen=True)
class Method:
    """A method of a module-level class: its key (`Class.name`) and whether a call passes the
    instance (or class) as the first parameter."""

    key: str
    func: cst.FunctionDef
    bound: bool


class ClassTable:
    """The module-level classes of one module, their methods and their submodules."""

    def __init__(self, module: cst.Module) -> None:
        self._classes = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
        self.methods: dict[str, Method] = {}
        self.owner: dict[cst.FunctionDef, str] = {}
        for name, cls in self._classes.items():
            for statement in _body(cls):
                if isinstance(statement, cst.FunctionDef):
                    key = f"{name}.{statement.name.value}"
                    bound = not _decorated_with(statement, "staticmethod")
                    self.methods[key] = Method(key, statement, bound)
                    self.owner[statement] = name
        self._submodules: dict[str, dict[str, tuple[str, bool]]] = {}  # read when asked
        self._parameters: dict[str, frozenset[str]] = {}

    def names_a_method(self, name: str) -> bool:
        """Whether some module-level class defines a method `name`."""
        return name in self._method_names

    @cached_property
    def _method_names(self) -> frozenset[str]:
        return frozenset(key.rsplit(".", 1)[1] for key in self.methods)

    def self_name(self, func: cst.FunctionDef) -> str | None:
        """The name a method calls its instance by (`self`), None for a static method, a
        class method or any other function."""
        owner = self.owner.get(func)
        if owner is None or not self.methods[f"{owner}.{func.name.value}"].bound:
            return None
        if _decorated_with(func, "classmethod"):
            return None
        params = [*func.params.posonly_params, *func.params.params]
        return params[0].name.value if params else None

    def method(self, owner: str, name: str) -> str | None:
        """The key of the method `name` that `self.name(...)` runs in class `owner`: its own,
        else the first module-level base's that defines it (bases in order, depth first)."""
        for current in self._lineage(owner):
            key = f"{current}.{name}"
            if key in self.methods:
                return key
        return None

    def _lineage(self, owner: str) -> Iterator[str]:
        """Class `owner` and its module-level bases, in order, depth first, each once."""
        seen: set[str] = set()
        pending = [owner]
        while pending:
            current = pending.pop(0)
            if current in seen or current not in self._classes:
                continue
            seen.add(current)
            yield current
            pending[:0] = [dotted(b.value) for b in self._classes[current].bases]

    def submodule(self, owner: str, attribute: str) -> tuple[str, bool] | None:
        """(the key of the `forward` that calling `self.attribute` runs, whether the attribute
        holds a list of such modules rather than one), from what `__init__` assigns it."""
        if owner not in self._classes:
            return None
        if owner not in self._submodules:
            self._submodules[owner] = _submodules(self._classes[owner], self._classes)
        found = self._submodules[owner].get(attribute)
        if found is None or found[0] == _AMBIGUOUS:
            return None
        key = self.method(found[0], _CALLED)
        return (key, found[1]) if key is not None else None

    def parameters(self, owner: str) -> frozenset[str]:
        """The attributes that hold a parameter of class `owner`'s modules: those its `__init__`,
        or a module-level base's, assigns only `nn.Parameter(...)` (or `None`, for an optional
        one)."""
        if owner not in self._parameters:
            self._parameters[owner] = frozenset().union(
                *(_parameters(self._classes[c]) for c in self._lineage(owner))
            )
        return self._parameters[owner]


def _body(cls: cst.ClassDef) -> list[cst.BaseStatement]:
    body = cls.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else []


def _decorated_with(func: cst.FunctionDef, name: str) -> bool:
    return any(dotted(d.decorator) == name for d in func.decorators)


def _submodules(
    cls: cst.ClassDef, classes: dict[str, cst.ClassDef]
) -> dict[str, tuple[str, bool]]:
    """attribute -> (class, is a list) for `self.attribute = Block(...)`, `= nn.ModuleList([Block(
    ...) for ...])`, `= nn.ModuleList(Block(...) for ...)`, and `= nn.ModuleList()` filled by
    `self.attribute.append(Block(...))`, anywhere in `__init__`; an attribute bound two ways
    maps to no class."""
    init = _init(cls)
    found: dict[str, tuple[str, bool]] = {}
    if init is None:
        return found

    def note(attribute: str, made: tuple[str, bool] | None) -> None:
        if made is None or found.get(attribute, made) != made:
            found[attribute] = (_AMBIGUOUS, False)
        else:
            found[attribute] = made

    filled: dict[str, set[str | None]] = {}
    for node in _small_statements(init.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                attribute = _self_attribute(target.target)
                if attribute is not None:
                    note(attribute, _made(node.value, classes))
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            attribute = _self_attribute(node.target)
            if attribute is not None:
                note(attribute, None)
        elif (
            isinstance(node, cst.Expr)
            and isinstance(node.value, cst.Call)
            and isinstance(node.value.func, cst.Attribute)
        ):
            node = node.value
            attribute = _self_attribute(node.func.value)
            if attribute is not None and node.func.attr.value in ("append", "extend", "insert"):
                element = node.args[-1].value if node.args else None
                if node.func.attr.value == "extend":
                    element = _comprehended(element)
                filled.setdefault(attribute, set()).add(_class_called(element, classes))
    for attribute, made in list(found.items()):
        if made == ("", True):  # an empty ModuleList: its elements are what is appended
            elements = filled.get(attribute, set())
            only = next(iter(elements)) if len(elements) == 1 else None
            found[attribute] = (only, True) if only else (_AMBIGUOUS, False)
    return found


def _parameters(cls: cst.ClassDef) -> frozenset[str]:
    """The attributes `cls.__init__` assigns `nn.Parameter(...)` and nothing else but `None`."""
    init = _init(cls)
    if init is None:
        return frozenset()
    kinds: dict[str, set[str]] = {}  # attribute -> "parameter", "none", "other"
    for node in _small_statements(init.body):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            targets = [node.target]
        for target in targets:
            attribute = _self_attribute(target)
            if attribute is not None:
                kinds.setdefault(attribute, set()).add(_assigned_kind(node))
    return frozenset(name for name, kind in kinds.items() if kind in _PARAMETER_KINDS)


def _assigned_kind(node: cst.BaseSmallStatement) -> str:
    value = node.value if isinstance(node, cst.Assign) else None
    if isinstance(value, cst.Call) and dotted(value.func) in _PARAMETERS:
        return "parameter"
    return "none" if value is not None and is_none(value) else "other"


def _init(cls: cst.ClassDef) -> cst.FunctionDef | None:
    return next(
        (s for s in _body(cls) if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
        None,
    )


def _made(value: cst.BaseExpression, classes: dict[str, cst.ClassDef]) -> tuple[str, bool] | None:
    """(class, is a list) of what `value` makes; ("", True) for an empty ModuleList."""
    single = _class_called(value, classes)
    if single is not None:
        return single, False
    if not isinstance(value, cst.Call) or dotted(value.func) not in _MODULE_LISTS:
        return None
    if not value.args:
        return "", True
    if len(value.args) != 1:
        return None
    inner = value.args[0].value
    elements: list[cst.BaseExpression | None]
    if isinstance(inner, (cst.List, cst.Tuple)):
        elements = [e.value for e in inner.elements]
    else:
        elements = [_comprehended(inner)]
    made = {_class_called(e, classes) for e in elements}
    only = next(iter(made)) if len(made) == 1 else None
    return (only, True) if only else None


def _comprehended(node: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """The element a list comprehension or generator makes."""
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return node.elt
    return None


def _class_called(node: cst.BaseExpression | None, classes: dict[str, cst.ClassDef]) -> str | None:
    """`Block(...)` for a module-level class `Block`: its name."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.func.value if node.func.value in classes else None
    return None


def _self_attribute(node: cst.BaseExpression) -> str | None:
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    ):
        return node.attr.value
    return None


def _small_statements(block: cst.BaseSuite) -> Iterator[cst.BaseSmallStatement]:
    """The simple statements of a body, in its `if`/`for`/`while`/`with`/`try` blocks too;
    nested functions and classes left out (their `self` is not this one)."""
    if isinstance(block, cst.SimpleStatementSuite):
        yield from block.body
        return
    for statement in block.body:  # type: ignore[union-attr]
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        else:
            for suite in _suites(statement):
                yield from _small_statements(suite)


def _suites(statement: cst.BaseStatement) -> Iterator[cst.BaseSuite]:
    """The blocks of a compound statement: its body, `elif`/`else` arms, handlers, `finally`."""
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    orelse = getattr(statement, "orelse", None)
    while orelse is not None:
        yield orelse.body
        orelse = getattr(orelse, "orelse", None)
    final = getattr(statement, "finalbody", None)
    if final is not None:
        yield final.body
