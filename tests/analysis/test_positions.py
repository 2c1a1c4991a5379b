"""`Positions` computes a node's range from its statement alone: every range must be the one
LibCST's whole-module PositionProvider gives, for every node, whichever is asked first."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from stridelint.analysis import positions as positions_module
from stridelint.analysis.positions import Positions
from stridelint.analysis.tree import walk
from tests.golden.corpus import cases

_PACKAGE = Path(positions_module.__file__).parents[1]
_SHAPES = (
    "class A:\n    x = 1\n\n    # a comment\n    @property\n    def f(self):\n"
    "        return (self.x\n                + 1)\n\n\n\nclass B(A): pass\n",
    "if True:\r\n    y = [1,\r\n         2]\r\ndef g():\r\n    return y\r\n",
    "def h():\r    return 1\rclass C:\r    def m(self): return h()\r",
    "x = 1; y = 2  # two statements\nclass D:\n\tdef t(self):\n\t\treturn '\\t'\n",
    "# only a comment, and no newline at the end",
    "class E:\n    '''doc'''\n    def a(self):\n        pass\n    b = lambda self: (\n        1)",
)


def _texts():
    yield from _SHAPES
    for case in cases():
        text = case.read(".before.py")
        if text:
            yield text
    for path in sorted(_PACKAGE.rglob("*.py"))[::3]:
        yield path.read_text(encoding="utf-8")


def test_every_range_is_libcsts_own():
    checked = 0
    for text in _texts():
        try:
            module = cst.parse_module(text)
        except cst.ParserSyntaxError:
            continue
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        nodes = list(walk(module))
        # asked back to front, then front to back: each unit is tracked on its first ask
        for order in (nodes[::-1], nodes):
            positions = Positions(module, text)
            for node in order:
                assert positions[node] == expected[node], (text[:60], type(node).__name__)
        checked += 1
    assert checked > 100


def test_a_statement_asks_only_for_its_own_tracking():
    """Asking for a node in one function does not fall back to the whole module."""
    module = cst.parse_module("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    positions = Positions(module, module.code)
    second = module.body[1]
    assert positions[second.name].start.line == 5
    assert positions._whole is None and positions._tracked == {second}


def _expected(module: cst.Module):
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


def test_a_reduced_text_is_searched_in_the_file_it_keeps_the_positions_of():
    """The screen blanks dropped functions to spaces: the kept ones open with those blank
    lines, which the file's own text does not hold; their ranges are still LibCST's."""
    original = (
        "import torch\n\n\ndef dropped(x):\n    return x + 1\n\n\n"
        "# kept\ndef kept(x):\n    return x.expand(4, -1)\n\n\nclass A:\n"
        "    def gone(self):\n        return 0\n\n    def here(self, m):\n        return m * 2\n"
    )
    lines = original.split("\n")
    for index in (3, 4, 13, 14):  # `dropped` and `A.gone`, blanked as the screen does
        lines[index] = " " * len(lines[index])
    reduced = "\n".join(lines)
    module = cst.parse_module(reduced)
    expected = _expected(module)
    positions = Positions(module, original)
    kept = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    here = next(s for s in module.body if isinstance(s, cst.ClassDef)).body.body[-1]
    for node in (*walk(module.body[0]), *walk(kept), *walk(here)):
        assert positions[node] == expected[node], type(node).__name__
    assert positions._whole is None  # every unit was found in the file's text
    for node in walk(module):  # the class header (the blanked method is in its code): whole
        assert positions[node] == expected[node], type(node).__name__


def test_a_unit_whose_code_occurs_twice_falls_back_to_the_whole_module():
    text = "def f():\n    return 1\n\n\ndef f():\n    return 1\n"
    module = cst.parse_module(text)
    positions = Positions(module, text)
    assert positions[module.body[1].body] == _expected(module)[module.body[1].body]
    assert positions._whole is not None
