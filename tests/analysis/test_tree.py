"""`tree.children` reads a node's children from its fields instead of LibCST's rebuilding
visitor: it must give LibCST's own list (the same objects, in the same order) for every
node, or every walk of the analysis would see another tree."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from stridelint.analysis import tree
from tests.golden.corpus import cases

_PACKAGE = Path(tree.__file__).parents[1]
_SYNTAX = '''
from . import a as b, c
from .. import *
import x.y as z
@deco(1)
async def f(a, /, b: int = 2, *args, c, d=3, **kw) -> "T":
    """Doc."""
    global g
    async with m as (p, q), n:
        async for i in range(3):
            yield i
    x = [i async for i in aiter() if i] + {k: v for k, v in d.items()} + {*s}
    y = lambda *a, b=1, **k: (yield)
    z = f"{x!r:>{w}} {y=}" "tail" f"{y}"
    del x[1:2, ::3], y.attr
    match point:
        case Point(x=0, y=0) | [1, *rest] | {"k": v, **more} if v:
            pass
        case str() as s:
            raise ValueError from None
    try:
        assert x, "msg"
    except* (A, B) as e:
        nonlocal_value = not x and y or -z ** 2 @ w
    finally:
        x += 1; y: int = 2; (w := 3)
    while t: break
    else: continue
    return x if y else z[...]
class C(Base, metaclass=M):
    def g(self): return super().g()
type Alias[T: int, *Ts, **P] = list[T]
'''


def _modules():
    yield cst.parse_module(_SYNTAX)
    for case in cases():
        text = case.read(".before.py")
        if text:
            try:
                yield cst.parse_module(text)
            except cst.ParserSyntaxError:
                continue
    for path in sorted(_PACKAGE.rglob("*.py")):
        yield cst.parse_module(path.read_text(encoding="utf-8"))


def test_children_are_libcsts_own_for_every_node():
    checked = set()
    for module in _modules():
        stack = [module]
        while stack:
            node = stack.pop()
            expected = node.children
            got = tree.children(node)
            assert len(got) == len(expected), type(node).__name__
            assert all(a is b for a, b in zip(got, expected)), type(node).__name__
            checked.add(type(node))
            stack.extend(expected)
    assert len(checked) >= 150  # the comparison covers most of LibCST's node classes
    fallen_back = [k.__name__ for k in checked if tree._FIELD_ORDER[k] is tree._LIBCST]
    assert fallen_back == []  # ... and each of them took the fast way


def test_a_class_whose_order_cannot_be_read_falls_back_to_libcst(monkeypatch):
    monkeypatch.setattr(tree, "_FIELD_ORDER", {})
    monkeypatch.setattr(tree.inspect, "getsource", lambda _: "no visit calls here")
    call = cst.parse_expression("f(a, b=1)")
    assert tree._learn_order(call) is tree._LIBCST  # no field it visits could be read
    assert [type(c) for c in tree.children(call)] == [type(c) for c in call.children]


def test_walk_is_in_source_order():
    module = cst.parse_module("def f(a):\n    return g(a) + h(b)\n")
    names = [n.value for n in tree.descendants(module, cst.Name)]
    assert names == ["f", "a", "g", "a", "h", "b"]


def test_parent_map_is_libcsts_parent_of_every_node():
    module = cst.parse_module(_SYNTAX)
    parents = tree.parent_map(module)
    stack = [module]
    while stack:
        node = stack.pop()
        for child in node.children:
            assert parents[child] is node
            stack.append(child)
    assert module not in parents


def test_the_lazy_parent_map_answers_as_parent_map_about_every_node():
    module = cst.parse_module(_SYNTAX)
    whole = tree.parent_map(module)
    lazy = tree.ParentMap(module)
    code = [n for n in whole if type(n) not in tree._LAYOUT]
    assert all(lazy.get(n) is whole[n] and lazy[n] is whole[n] and n in lazy for n in code)
    assert lazy.get(module) is None and module not in lazy and lazy.get(None, 1) == 1
    assert lazy._whole is None  # questions about code never built the whole map
    comma = next(n for n in whole if isinstance(n, cst.Comma))
    assert lazy.get(comma) is whole[comma]  # a left-out node: the whole map answers
    assert lazy._whole is not None
    assert list(tree.ParentMap(module)) == list(whole) and len(lazy) == len(whole)
    assert all(lazy[n] is p for n, p in whole.items())


def test_descendants_of_a_class_are_its_instances_whether_it_has_subclasses_or_not():
    module = cst.parse_module(_SYNTAX)
    for kind in (cst.Name, cst.Call, cst.BaseExpression, cst.BaseCompoundStatement):
        expected = [n for n in tree.walk(module) if isinstance(n, kind)]
        got = list(tree.descendants(module, kind))
        assert expected and len(got) == len(expected)
        assert all(a is b for a, b in zip(got, expected)), kind.__name__


@pytest.mark.parametrize(
    ("code", "targets"),
    [("a = 1", ["a"]), ("a, self.b = 1, 2", ["a", "self.b"]), ("x = y = z", ["x", "y"]),
     ("[p, q] = r", ["p", "q"])],
)  # fmt: skip
def test_assignment_targets_unpack_one_level(code, targets):
    (assign,) = [n for n in tree.walk(cst.parse_module(code + "\n")) if isinstance(n, cst.Assign)]
    module = cst.Module(body=[])
    assert [module.code_for_node(t) for t in tree.assignment_targets(assign)] == targets
