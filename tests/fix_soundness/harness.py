"""Run a generated module and its safely fixed version on the same arguments and compare
everything a caller can observe (ARCHITECTURE.md, Fixes: a `safe` fix keeps it all):

* returned values, recursively through tuples, lists, dicts and namespaces: tensors with
  the same type, dtype, shape, strides and values (NaN matching NaN; a safe fix promises
  identical values, so floats must be equal, not close); Python values of the same type
  and equal;
* the type of the exception raised, when the original raises;
* what the call did to its arguments (each run gets fresh ones, compared afterwards like
  results) and to module globals the function writes (`global kept_*`).

A module's functions run only if the fixed module compiles and imports; a fix round that
reports an internal error counts as a failure too.
"""

from __future__ import annotations

import ast
import collections
import math
import sys
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from stridelint.config import Config
from stridelint.engine import fix_text
from stridelint.source import decode
from stridelint.transforms.helpers import helper_module_source
from tests.fix_soundness.programs import GeneratedModule, Program, materialize

ROOT = Path(__file__).resolve().parents[2]
CONFIG = Config(root=ROOT, source=None, scope="all")  # POSSIBLE findings in every function
# The other fix style: helpers imported from a module (registered below, never written) and
# a short line length, so rewritten expressions are broken over lines and long inline
# narrowings fall back to the helper.
HELPER_MODULE = "stridelint_soundness_helpers"
CONFIG_HELPER_MODULE = Config(
    root=ROOT, source=None, scope="all", helper_module=HELPER_MODULE, line_length=60
)
PATH = ROOT / "generated_soundness_module.py"  # judged by the config, never written
# How a rewritten function narrows, told by the text the fix writes.
FORMS = {
    "inline": "tuple(slice(1) if r > 1 else slice(None) for r in",
    "helper": "narrow_broadcast(",
    "walrus": ":= ",
}


def register_helper_module() -> None:
    """Make `HELPER_MODULE` importable, holding what `stridelint helpers` writes."""
    if HELPER_MODULE not in sys.modules:
        module = types.ModuleType(HELPER_MODULE)
        exec(compile(helper_module_source(), HELPER_MODULE, "exec"), module.__dict__)  # noqa: S102
        sys.modules[HELPER_MODULE] = module


@dataclass(frozen=True)
class Difference:
    """One call whose fixed run a caller could tell from the original run."""

    seed: int
    program: str
    call: int
    what: str
    original: str  # the function's source before and after the fix
    fixed: str
    arguments: str

    def report(self) -> str:
        return (
            f"seed {self.seed}, {self.program}, call {self.call}: {self.what}\n"
            f"arguments: {self.arguments}\n--- original\n{self.original}--- fixed\n{self.fixed}"
        )


@dataclass
class Tally:
    modules: int = 0
    programs: int = 0
    rewritten: int = 0  # programs whose function the safe fixes changed
    calls: int = 0
    raised: int = 0  # calls where the original raised (the fixed code must raise alike)
    differences: list[Difference] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # fixes that broke a module or the tool
    forms: collections.Counter = field(default_factory=collections.Counter)  # FORMS rewritten

    def add(self, other: Tally) -> None:
        for name in ("modules", "programs", "rewritten", "calls", "raised"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.forms += other.forms
        self.differences += other.differences
        self.errors += other.errors


def safely_fixed(source: str, config: Config = CONFIG) -> tuple[str, list[str]]:
    outcome = fix_text(decode(source.encode()), config, PATH, unsafe=False)
    return outcome.text, outcome.internal_errors


def check_module(module: GeneratedModule, config: Config = CONFIG) -> Tally:
    tally = Tally(modules=1, programs=len(module.programs))
    if config.helper_module == HELPER_MODULE:
        register_helper_module()
    fixed_source, errors = safely_fixed(module.source, config)
    if errors:
        tally.errors.append(f"seed {module.seed}: {errors}")
    try:
        original = _load(module.source, f"soundness_original_{module.seed}")
        fixed = _load(fixed_source, f"soundness_fixed_{module.seed}")
    except Exception as error:  # noqa: BLE001 - a fixed module that does not import is a finding
        tally.errors.append(f"seed {module.seed}: the fixed module does not load: {error!r}")
        return tally
    before, after = _functions(module.source), _functions(fixed_source)
    for program in module.programs:
        if before.get(program.name) != after.get(program.name):
            tally.rewritten += 1
            rewritten = after.get(program.name, "")
            tally.forms.update(form for form, text in FORMS.items() if text in rewritten)
        _check_program(module.seed, program, original, fixed, before, after, tally)
    return tally


def _check_program(seed, program: Program, original, fixed, before, after, tally: Tally) -> None:
    for index, recipe in enumerate(program.calls):
        tally.calls += 1
        original_args, fixed_args = materialize(recipe), materialize(recipe)
        original_result, original_error = _run(original, program.name, original_args)
        fixed_result, fixed_error = _run(fixed, program.name, fixed_args)
        if original_error is not None:
            tally.raised += 1
        what = None
        if original_error is not fixed_error:
            what = f"the original {_outcome(original_error)}, the fix {_outcome(fixed_error)}"
        elif original_error is None:
            what = difference(original_result, fixed_result, "result")
        what = what or difference(original_args, fixed_args, "arguments after the call")
        what = what or difference(_kept(original), _kept(fixed), "globals after the call")
        if what is not None:
            tally.differences.append(Difference(
                seed, program.name, index, what, before.get(program.name, ""),
                after.get(program.name, ""), repr(recipe),
            ))  # fmt: skip
            return  # one difference per program is enough to report


def _load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - generated code
    return module


def _functions(source: str) -> dict[str, str]:
    tree = ast.parse(source)
    return {
        node.name: ast.get_source_segment(source, node) + "\n"
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }


def _run(module: types.ModuleType, name: str, args: tuple) -> tuple[Any, type | None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return getattr(module, name)(*args), None
        except Exception as error:  # noqa: BLE001 - an exception is an outcome to compare
            return None, type(error)


def _kept(module: types.ModuleType) -> dict[str, Any]:
    return {key: value for key, value in vars(module).items() if key.startswith("kept_")}


def _outcome(error: type | None) -> str:
    return f"raised {error.__name__}" if error else "returned"


def difference(a: Any, b: Any, where: str) -> str | None:
    """How `b` differs from `a` in anything a caller can observe (None: it does not)."""
    if type(a) is not type(b):
        return f"{where}: {type(b).__name__} instead of {type(a).__name__}"
    if isinstance(a, torch.Tensor):
        return _tensor_difference(a, b, where)
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f"{where}: length {len(b)} instead of {len(a)}"
        for index, (x, y) in enumerate(zip(a, b)):
            found = difference(x, y, f"{where}[{index}]")
            if found:
                return found
        return None
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return f"{where}: keys {sorted(b)} instead of {sorted(a)}"
        for key in a:
            found = difference(a[key], b[key], f"{where}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(a, types.SimpleNamespace):
        return difference(vars(a), vars(b), where)
    if isinstance(a, float) and math.isnan(a):
        return None if math.isnan(b) else f"{where}: {b!r} instead of nan"
    if a != b:
        return f"{where}: {b!r} instead of {a!r}"
    return None


def _tensor_difference(a: torch.Tensor, b: torch.Tensor, where: str) -> str | None:
    for attribute in ("dtype", "shape", "layout", "requires_grad"):
        expected, found = getattr(a, attribute), getattr(b, attribute)
        if expected != found:
            return f"{where}: {attribute} {found} instead of {expected}"
    if a.stride() != b.stride():
        return f"{where}: strides {b.stride()} instead of {a.stride()}"
    same = a == b
    if a.is_floating_point() or a.is_complex():
        same = same | (a.isnan() & b.isnan())
    if not bool(same.all()):
        return f"{where}: values {b} instead of {a}"
    return None
