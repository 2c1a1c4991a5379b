"""Rules are discovered from their modules: a new rule needs no registration elsewhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import stridelint.rules as registry
from stridelint.rules import ALL_RULES, RULES_BY_CODE

RULES_DIR = Path(registry.__file__).parent


def test_every_rule_module_is_discovered_once_in_code_order():
    modules = sorted(p.stem for p in RULES_DIR.glob("sl[0-9][0-9][0-9]_*.py"))
    assert [rule.__module__.rsplit(".", 1)[-1] for rule in ALL_RULES] == modules
    assert [rule.code for rule in ALL_RULES] == sorted(RULES_BY_CODE)


def test_a_new_rule_module_is_picked_up_without_registration(tmp_path):
    package = tmp_path / "stridelint" / "rules"
    package.mkdir(parents=True)
    for source in RULES_DIR.glob("*.py"):
        (package / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    (package / "sl999_example.py").write_text(
        "from stridelint.rules.base import Rule\n\n\n"
        "class Example(Rule):\n    code = 'SL999'\n    name = 'example'\n    summary = 'x'\n",
        encoding="utf-8",
    )
    script = (
        "import stridelint.rules as r, sys\n"
        f"r.__path__[:] = [{str(package)!r}]\n"
        "print([x.code for x in r._discover()])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "'SL999'" in out.stdout


def test_importing_the_registry_does_not_import_libcst():
    # `lazy_import` registers a module object; its code runs (and imports submodules) on use.
    script = "import sys, stridelint.rules; print('libcst._nodes.base' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
