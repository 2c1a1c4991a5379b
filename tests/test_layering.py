"""The package's import layering (ARCHITECTURE.md, Data flow): read with `ast`, never imported.

Layers, top to bottom; a module may import its own layer and the layers below it, never one
above:

    cli       the front ends: stridelint.cli, stridelint.__main__, stridelint.demo (the
              `demo` command), and stridelint.runtime (the runtime companion and its pytest
              plugin: like the CLI, it loads the settings and runs the engine)
    config    stridelint.config
    engine    stridelint.engine and its parts: discovery, cache, prefilter, screen (the
              engine's stage 2), suppression, noqa
    analysis/rules/transforms
              stridelint.analysis, stridelint.rules, stridelint.transforms, and
              stridelint.context (the RuleContext the engine builds and the rules read)
    output    stridelint.output
    base      what every layer exchanges or uses: the package itself (`__version__`),
              findings, source, lazy; and stridelint.reference (the bundled kernel, wrapper
              and hook: user-side code that must not depend on the linter)

Inside the analysis/rules/transforms layer:

* analysis imports no rule, no transform and not the rule context (facts, no opinions);
* transforms import no rule (rules ask and decide, transforms ask and rewrite);
* a rule module (rules/slNNN_*.py) imports no other rule module and not the registry.
  Exempt: rules/base.py (the Rule class), rules/common.py (helpers shared by rules) and
  rules/wording.py (how messages name things) are the toolkit every rule builds on, so any rule may import them; they are not rules, and they
  themselves may import no rule module and not the registry (else they would be a back door
  from one rule to another). The registry rules/__init__.py imports every rule, which is its
  job; it and rules/pages.py (renders the rules' pages from the registry) are not rules, but
  a rule must not import them: through ALL_RULES it would reach every other rule (and the
  registry imports the rules, so it would be a cycle).

Every import counts: at module level, inside a function, under `if TYPE_CHECKING:` (a layer
that names a higher layer's types depends on it; the guard only hides the dependency from
the interpreter), and module names given as strings to `stridelint.lazy.lazy_import(...)` or
`importlib.import_module(...)`. `from a.b import c` is an import of the module a.b.c when
there is one, else of a.b; an import of a.b.c is not counted as one of its parent packages
(Python runs them, but every submodule import would otherwise count as importing the
package's `__init__`). Relative imports are resolved.

A violation the current code has is listed in KNOWN_VIOLATIONS (remove when fixed); an entry
that no longer matches any import fails the test too, so the list only shrinks.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "stridelint"
PACKAGE_DIR = Path(__file__).resolve().parents[1] / PACKAGE

# (layer, module patterns); index 0 is the top. A module belongs to the first layer with a
# matching pattern; `pkg.*` matches the package pkg itself too.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cli", ("stridelint.cli", "stridelint.__main__", "stridelint.demo", "stridelint.runtime.*",
             "stridelint.flake8_plugin", "stridelint.lsp.*")),
    ("config", ("stridelint.config",)),
    ("engine", ("stridelint.engine", "stridelint.discovery", "stridelint.cache",
                "stridelint.prefilter", "stridelint.screen", "stridelint.suppression",
                "stridelint.noqa",
                "stridelint.notebook")),
    ("analysis/rules/transforms", ("stridelint.analysis.*", "stridelint.rules.*",
                                   "stridelint.transforms.*", "stridelint.context")),
    ("output", ("stridelint.output.*",)),
    ("base", ("stridelint", "stridelint.findings", "stridelint.source", "stridelint.lazy",
              "stridelint.reference.*")),
)  # fmt: skip

ANALYSIS = "stridelint.analysis"
TRANSFORMS = "stridelint.transforms"
RULES = "stridelint.rules"
CONTEXT = "stridelint.context"
RULE_TOOLKIT = (
    "stridelint.rules.base", "stridelint.rules.common", "stridelint.rules.wording"
)
RULE_NON_RULES = (RULES, "stridelint.rules.pages")  # the registry and the page renderer

# The current code's violations, as (importer, imported module): each is a known debt.
# Remove when fixed. (file:line and the kind of import are in the comments.)
KNOWN_VIOLATIONS: frozenset[tuple[str, str]] = frozenset({
    # remove when fixed: engine.py:35 (type-checking) `from stridelint.config import Config`
    ("stridelint.engine", "stridelint.config"),
    # remove when fixed: discovery.py:20 `from stridelint.config import Config, gitignore_spec`
    ("stridelint.discovery", "stridelint.config"),
    # remove when fixed: output/*.py (type-checking) `from stridelint.rules.base import Rule`,
    # the formatters' annotation of the rule classes they print (name, page URL)
    ("stridelint.output", "stridelint.rules.base"),  # output/__init__.py:20
    ("stridelint.output.concise", "stridelint.rules.base"),  # output/concise.py:14
    ("stridelint.output.full", "stridelint.rules.base"),  # output/full.py:17
    ("stridelint.output.github", "stridelint.rules.base"),  # output/github.py:14
    ("stridelint.output.json", "stridelint.rules.base"),  # output/json.py:12
    ("stridelint.output.jsonlines", "stridelint.rules.base"),  # output/jsonlines.py:12
    ("stridelint.output.sarif", "stridelint.rules.base"),  # output/sarif.py:16
    ("stridelint.output.statistics", "stridelint.rules.base"),  # output/statistics.py:15
})  # fmt: skip


# ---- the checker ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Module:
    source: str
    is_package: bool = False
    path: str = ""  # for messages


@dataclass(frozen=True)
class Import:
    importer: str
    target: str  # a module of the map (the longest known prefix of the named module)
    line: int
    kind: str  # "top-level", "in-function", "type-checking" or "lazy"


@dataclass(frozen=True)
class Violation:
    edge: Import
    reason: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.edge.importer, self.edge.target)

    def describe(self, modules: Mapping[str, Module]) -> str:
        where = modules[self.edge.importer].path or self.edge.importer
        return f"{where}:{self.edge.line} → {self.edge.target} ({self.edge.kind}): {self.reason}"


def package_modules(directory: Path = PACKAGE_DIR, package: str = PACKAGE) -> dict[str, Module]:
    modules = {}
    for path in sorted(directory.rglob("*.py")):
        parts = path.relative_to(directory).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join((package, *(parts[:-1] if is_package else parts)))
        relative = str(path.relative_to(directory.parent))
        modules[name] = Module(path.read_text(encoding="utf-8"), is_package, relative)
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


_DYNAMIC_IMPORTERS = {"lazy_import", "import_module"}


def _raw_imports(
    tree: ast.AST, name: str, is_package: bool
) -> Iterator[tuple[str, list[str], int, str]]:
    """(module, names imported from it, line, kind) for every import in the tree."""
    base = name if is_package else name.rpartition(".")[0]

    def visit(node: ast.AST, kind: str) -> Iterator[tuple[str, list[str], int, str]]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno, kind
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                module = ".".join([*anchor, module] if module else anchor)
            yield module, [alias.name for alias in node.names], node.lineno, kind
        elif isinstance(node, ast.Call):
            func = node.func
            called = getattr(func, "id", None) or getattr(func, "attr", None)
            if called in _DYNAMIC_IMPORTERS and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):  # fmt: skip
                yield node.args[0].value, [], node.lineno, "lazy"
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from visit(child, "type-checking")
            for child in node.orelse:
                yield from visit(child, kind)
            return
        inner = "in-function" if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
            and kind == "top-level" else kind  # fmt: skip
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inner)

    yield from visit(tree, "top-level")


def _known(module: str, modules: Mapping[str, Module]) -> str | None:
    while module:
        if module in modules:
            return module
        module = module.rpartition(".")[0]
    return None


def imports(modules: Mapping[str, Module]) -> list[Import]:
    """Every import, by any module of the map, of a module of the map."""
    found = []
    for name, module in modules.items():
        tree = ast.parse(module.source, module.path or name)
        for target, names, line, kind in _raw_imports(tree, name, module.is_package):
            targets = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules] or [target]
            for each in targets:
                resolved = _known(each, modules)
                if resolved is not None and resolved != name:
                    found.append(Import(name, resolved, line, kind))
    return found


def _matches(module: str, pattern: str) -> bool:
    if pattern.endswith(".*") and module == pattern[:-2]:
        return True
    return fnmatch.fnmatchcase(module, pattern)


def layer_of(module: str) -> int | None:
    for index, (_, patterns) in enumerate(LAYERS):
        if any(_matches(module, pattern) for pattern in patterns):
            return index
    return None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def is_rule_module(module: str) -> bool:
    return _within(module, RULES) and module not in (*RULE_TOOLKIT, *RULE_NON_RULES)


def violations(modules: Mapping[str, Module]) -> list[Violation]:
    found = []
    for edge in imports(modules):
        source, target = edge.importer, edge.target
        source_layer, target_layer = layer_of(source), layer_of(target)
        if source_layer is not None and target_layer is not None and target_layer < source_layer:
            found.append(Violation(edge, f"{LAYERS[source_layer][0]} imports the higher layer "
                                         f"{LAYERS[target_layer][0]}"))  # fmt: skip
        if _within(source, ANALYSIS) and (
            _within(target, RULES) or _within(target, TRANSFORMS) or target == CONTEXT
        ):
            found.append(Violation(edge, "analysis imports a rule, a transform or the rule context"))
        if _within(source, TRANSFORMS) and _within(target, RULES):
            found.append(Violation(edge, "a transform imports a rule"))
        if (is_rule_module(source) or source in RULE_TOOLKIT) and (
            is_rule_module(target) or target in RULE_NON_RULES
        ):
            found.append(
                Violation(edge, "a rule (or the rule toolkit) imports another rule or the registry")
            )
    return found


# ---- the package --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def modules() -> dict[str, Module]:
    return package_modules()


def test_the_package_is_read(modules):
    assert {"stridelint.cli", "stridelint.engine", "stridelint.rules.base",
            "stridelint.analysis.module", "stridelint.output"} <= modules.keys()  # fmt: skip
    assert len(imports(modules)) > len(modules), "the checker finds (almost) no imports"


def test_every_module_has_a_layer(modules):
    unplaced = [name for name in modules if layer_of(name) is None]
    assert unplaced == [], "add these modules to a layer in LAYERS"


def test_no_import_breaks_the_layering(modules):
    new = [v.describe(modules) for v in violations(modules) if v.key not in KNOWN_VIOLATIONS]
    assert new == [], "imports against the layering:\n" + "\n".join(new)


def test_every_known_violation_still_exists(modules):
    present = {v.key for v in violations(modules)}
    fixed = sorted(KNOWN_VIOLATIONS - present)
    assert fixed == [], f"fixed: remove these from KNOWN_VIOLATIONS: {fixed}"


# ---- the checker, on synthetic packages -----------------------------------------------------


def _keys(modules: Mapping[str, Module]) -> set[tuple[str, str]]:
    return {v.key for v in violations(modules)}


CLEAN = {
    "stridelint": Module("__version__ = '1'\n", is_package=True),
    "stridelint.cli": Module("from stridelint.config import load\nfrom stridelint import engine\n"),
    "stridelint.config": Module("import stridelint.findings\n"),
    "stridelint.engine": Module("def run():\n    from stridelint import rules\n"),
    "stridelint.findings": Module(""),
    "stridelint.analysis": Module("", is_package=True),
    "stridelint.analysis.facts": Module("from . import names\nfrom ..findings import x\n"),
    "stridelint.analysis.names": Module(""),
    "stridelint.transforms": Module("", is_package=True),
    "stridelint.transforms.hoist": Module("from stridelint.analysis import facts\n"),
    "stridelint.rules": Module("from stridelint.rules import sl101_a, sl102_b\n", is_package=True),
    "stridelint.rules.base": Module("from stridelint.findings import x\n"),
    "stridelint.rules.common": Module("from stridelint.rules.base import Rule\n"),
    "stridelint.rules.sl101_a": Module(
        "from stridelint.rules import common\nfrom stridelint.rules.base import Rule\n"
        "hoist = lazy_import('stridelint.transforms.hoist')\n"
    ),
    "stridelint.rules.sl102_b": Module("from .base import Rule\n"),
    "stridelint.output": Module("from stridelint.findings import x\n", is_package=True),
}


def test_a_layered_package_passes():
    assert violations(CLEAN) == []


@pytest.mark.parametrize(
    ("importer", "source", "target", "kind"),
    [
        # the reversed chain, one import of each kind
        ("stridelint.config", "import stridelint.cli\n", "stridelint.cli", "top-level"),
        ("stridelint.engine", "from stridelint import config\n", "stridelint.config", "top-level"),
        ("stridelint.analysis.names", "def f():\n    from stridelint.engine import run\n",
         "stridelint.engine", "in-function"),
        ("stridelint.rules.base", "if TYPE_CHECKING:\n    from stridelint.config import C\n",
         "stridelint.config", "type-checking"),
        ("stridelint.output", "m = lazy_import('stridelint.rules.sl101_a')\n",
         "stridelint.rules.sl101_a", "lazy"),
        ("stridelint.findings", "import importlib\nimportlib.import_module('stridelint.output')\n",
         "stridelint.output", "lazy"),
        ("stridelint.analysis.names", "from ..engine import run\n", "stridelint.engine", "top-level"),
        # inside the analysis/rules/transforms layer
        ("stridelint.analysis.names", "from stridelint.rules.base import Rule\n",
         "stridelint.rules.base", "top-level"),
        ("stridelint.analysis.facts", "from stridelint.transforms import hoist\n",
         "stridelint.transforms.hoist", "top-level"),
        ("stridelint.transforms.hoist", "from stridelint.rules import common\n",
         "stridelint.rules.common", "top-level"),
        ("stridelint.rules.sl101_a", "from stridelint.rules.sl102_b import helper\n",
         "stridelint.rules.sl102_b", "top-level"),
        ("stridelint.rules.sl101_a", "def f():\n    from stridelint.rules import ALL_RULES\n",
         "stridelint.rules", "in-function"),
        ("stridelint.rules.common", "from .sl101_a import helper\n", "stridelint.rules.sl101_a",
         "top-level"),
    ],
)  # fmt: skip
def test_the_checker_catches_a_reversed_import(importer, source, target, kind):
    modules = {**CLEAN, importer: Module(source, CLEAN[importer].is_package)}
    found = violations(modules)
    assert [(v.edge.importer, v.edge.target, v.edge.kind) for v in found] == [(importer, target, kind)]


def test_an_import_of_a_missing_submodule_counts_as_one_of_its_package():
    modules = {**CLEAN, "stridelint.analysis.names": Module("from stridelint.rules.gone import x\n")}
    assert _keys(modules) == {("stridelint.analysis.names", "stridelint.rules")}

