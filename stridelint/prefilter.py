"""Decide from the interpreter's own syntax tree whether a file can produce a broadcast finding.

Every broadcast fact the analysis can reach starts from one of these, so a file with none
is never parsed with LibCST (most files of a real tree, and most Triton kernel files, which
mention strides everywhere but never compare one with 0):

- a stride-0 source: a name or attribute containing the name of one the analysis knows
  (`expand`, `broadcast_to`, `broadcast_tensors`, `as_strided`, ...; imports and aliases
  included);
- a string that says "broadcast" (a docstring, a hook's documented `args` entry);
- a `#` in a string inside a parameter's or an annotated assignment's annotation (a
  jaxtyping broadcastable dim);
- a comparison of a stride with 0: `x.stride(d) == 0`, `x.stride()[d] != 0`, `s == 0` or
  `s[d] == 0` where `s` was assigned from `x.stride(...)`, or from a call to a function of the
  module when the module reads strides somewhere (a helper returning strides);
- a configured `broadcast-hints` name, as a name, attribute, parameter or string.

It reads the tree, not the text, because strings are compared after evaluation: an escape
(`broad\\x63ast`), a backslash-newline or implicit concatenation cannot hide a word from it.
The tree is `compile(..., PyCF_ONLY_AST)`, which the engine needs anyway to report syntax
errors in files it does not parse with LibCST.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterable

from stridelint.analysis import torch_ops  # tables only: no LibCST import
from stridelint.analysis.stride_text import reads_stride_attribute

# The analysis's own stride-0 sources, by their last name: a name containing one (an alias,
# `import torch.broadcast_to`, `x.expand_as`) keeps the file.
_SOURCE_WORDS = frozenset(
    qualified.rsplit(".", 1)[-1]
    for qualified in torch_ops.BROADCAST_METHODS | torch_ops.BROADCAST_FUNCTIONS
    | torch_ops.BROADCAST_TUPLE_FUNCTIONS | torch_ops.STRIDED_FUNCTIONS
) | torch_ops.SOURCE_MODULES  # `from einops import repeat`: the module, not `repeat`


# What a trigger spells in the text, as a name or in a string (any case).
_WORDS = tuple(sorted(_SOURCE_WORDS | {"broadcast"}))
# Strings and comments as the tokenizer of Python 3.11 reads them (prefixes need no care: a
# string starts at its quote); `\\(?:\r\n|.)` is an escape or a backslash-newline.
_STRING_OR_COMMENT = re.compile(
    r"#[^\r\n]*"
    r'|"""[^"\\]*(?:(?:\\(?:\r\n|.)|"(?!""))[^"\\]*)*"""'
    r"|'''[^'\\]*(?:(?:\\(?:\r\n|.)|'(?!''))[^'\\]*)*'''"
    r'|"(?:\\(?:\r\n|.)|[^"\\\r\n])*"'
    r"|'(?:\\(?:\r\n|.)|[^'\\\r\n])*'",
    re.DOTALL,
)
# The escapes that can make a letter, a digit, `_` or `#` (by code: octal, `\x`, `\N{}`,
# `\u`, `\U`) or join two lines (a backslash-newline); any other makes a control character,
# a quote or a backslash, or keeps its backslash.
_HIDING_ESCAPE = re.compile(r"\\[0-7xNuU\r\n]")
# What may stand between two string literals that Python joins into one.
_JOIN = re.compile(r"(?:[ \t\f\r\n]|\\\r?\n|#[^\r\n]*(?=[\r\n]))*[rRbBuUfF]{0,2}")


def may_have_findings_text(text: str, broadcast_hints: Iterable[str] = ()) -> bool:
    """Stage 1, on the text: False only when the tree stage (below) would say False, so the
    file needs no syntax tree at all (valid only for a file that compiles: the tokenizing is
    Python 3.11's, and a file that does not compile goes to the tree anyway). Each trigger
    shows in the text: a name as it is spelled (NFKC, as Python reads identifiers), a word
    or hint in a string too, unless an escape or two joined literals hide it; a `#` dim as a
    `#` in a string or an escape; a stride comparison as the `.stride` attribute."""
    hints = tuple(broadcast_hints)
    if _spells(text, hints):
        return True
    read = text if text.isascii() else unicodedata.normalize("NFKC", text)
    if read is not text and _spells(read, hints):
        return True
    if reads_stride_attribute(read):
        return True
    if "\\" not in text and "#" not in text and text.count('"') + text.count("'") < 4:
        return False
    joined: list[str] = []  # the contents of the literals joined so far
    previous_end = -1
    for token in _STRING_OR_COMMENT.finditer(text):
        value = token.group()
        if value[0] == "#":
            continue
        if "#" in value or _HIDING_ESCAPE.search(value):
            return True
        if previous_end < 0 or not _JOIN.fullmatch(text, previous_end, token.start()):
            if len(joined) > 1 and _spells("".join(joined), hints):
                return True
            joined = []
        joined.append(value[3:-3] if value[:3] in ('"""', "'''") else value[1:-1])
        previous_end = token.end()
    return len(joined) > 1 and _spells("".join(joined), hints)


def _spells(text: str, hints: tuple[str, ...]) -> bool:
    """A word in any case (str.lower, as the tree stage tests), or a hint as it is."""
    lowered = text.lower()
    return any(word in lowered for word in _WORDS) or any(hint in text for hint in hints)


def may_have_findings(tree: ast.AST, broadcast_hints: Iterable[str] = ()) -> bool:
    """Stage 2, on the tree. One walk collects what the triggers read (each distinct name and
    string once: a file repeats the same few hundred), then each trigger is one test; this
    runs on every file the text screen keeps, most of which have none."""
    hints = frozenset(broadcast_hints)
    names: set[str] = set()  # names, attributes, imported names and aliases, parameters
    strings: set[str] = set()
    annotations: list[ast.expr] = []
    stride_names: set[str] = set()
    zero_compared: list[ast.expr] = []
    reads_strides = False
    defined: set[str] = set()  # module functions: one may be a stride helper (strides.py)
    bound_by_call: dict[str, str] = {}  # name -> the module-level function name it came from
    stack: list[object] = [tree]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            names.add(node.id)
            continue
        if kind is ast.Attribute:
            names.add(node.attr)
        elif kind is ast.Constant:
            if type(node.value) is str:
                strings.add(node.value)
            continue
        elif kind is ast.alias:
            names.add(node.name)
            if node.asname is not None:
                names.add(node.asname)
            continue
        elif kind is ast.ImportFrom:
            if (node.module or "").split(".")[0] in torch_ops.SOURCE_MODULES:
                return True
        elif kind is ast.arg:
            names.add(node.arg)
            if node.annotation is not None:
                annotations.append(node.annotation)
        elif kind is ast.AnnAssign:  # `mask: Bool[Tensor, "#b n"] = load()`
            annotations.append(node.annotation)
        elif kind is ast.Assign:
            value = node.value
            if is_stride_read(value):
                stride_names.update(bound_names(node.targets))
            elif type(value) is ast.Call and type(value.func) is ast.Name:
                for name in bound_names(node.targets):
                    bound_by_call[name] = value.func.id
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            defined.add(node.name)
        elif kind is ast.Call:
            func = node.func
            reads_strides = reads_strides or (type(func) is ast.Attribute and func.attr == "stride")
        elif kind is ast.Compare:
            zero_compared.extend(compared_with_zero(node))
        elif not isinstance(node, ast.AST):
            continue  # None, or a name in `global a, b`
        for field in child_fields(kind):
            child = getattr(node, field, None)
            if type(child) is list:
                stack.extend(child)
            elif child is not None:
                stack.append(child)
    if names & hints or strings & hints:
        return True
    # Joined by line breaks: no name holds one, and no word spans one.
    if _names_a_source("\n".join(names)) or "broadcast" in "\n".join(strings).lower():
        return True
    if any("#" in value for value in strings) and any(
        has_string_with(annotation, "#") for annotation in annotations
    ):
        return True
    if reads_strides:  # names a stride helper returned (`s_r, s_0 = _strides(mask, dim)`)
        stride_names.update(n for n, func in bound_by_call.items() if func in defined)
    return any(reads_stride_name(operand, stride_names) for operand in zero_compared)


# Fields that never hold a node a trigger can be under: contexts, operators and plain values
# (the walk reads a node's own names where it meets the node). Any other field is walked;
# `name` is, as `type X = ...` (3.12) holds a Name there.
_LEAF_FIELDS = frozenset(
    ("ctx", "op", "ops", "id", "attr", "asname", "arg", "module", "level", "kind",
     "type_comment", "conversion", "is_async", "simple")
)  # fmt: skip
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node class that the walks (here and in screen.py) descend into."""
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
    return fields


def reads_stride_name(operand: ast.expr, stride_names: set[str]) -> bool:
    """`x.stride(d)`, `x.stride()[d]`, `s` or `s[d]` for a name bound to strides."""
    if is_stride_read(operand):
        return True
    if isinstance(operand, ast.Subscript):
        operand = operand.value
    return isinstance(operand, ast.Name) and operand.id in stride_names


def _names_a_source(names: str) -> bool:
    lowered = names.lower()
    return any(word in lowered for word in _SOURCE_WORDS)


def has_string_with(node: ast.AST, text: str) -> bool:
    """A string constant below `node` holds `text` (asked of every annotation: most are a
    name, so the walk is the cheap one of the pre-filter)."""
    stack = [node]
    while stack:
        inner = stack.pop()
        kind = type(inner)
        if kind is ast.Constant:
            if type(inner.value) is str and text in inner.value:
                return True
        elif isinstance(inner, ast.AST):
            for field in child_fields(kind):
                child = getattr(inner, field, None)
                if type(child) is list:
                    stack.extend(child)
                elif child is not None:
                    stack.append(child)
    return False


def is_stride_read(node: ast.expr) -> bool:
    """`x.stride(d)`, `x.stride()` or `x.stride()[d]`."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "stride"
    )


def bound_names(targets: list[ast.expr]) -> Iterable[str]:
    for target in targets:
        for inner in ast.walk(target):
            if isinstance(inner, ast.Name):
                yield inner.id


def compared_with_zero(node: ast.Compare) -> list[ast.expr]:
    """The other side of a single comparison with the integer literal 0."""
    if len(node.comparators) != 1:
        return []
    left, right = node.left, node.comparators[0]
    return [
        other
        for zero, other in ((right, left), (left, right))
        if isinstance(zero, ast.Constant) and type(zero.value) is int and zero.value == 0
    ]
