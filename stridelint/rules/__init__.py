"""The rule registry: the CLI, the engine, the docs generator and the tests all read ALL_RULES.

Rules are discovered, not listed: every module `slNNN_<name>.py` in this package defines one
`Rule` subclass, so adding a rule touches only its own module (plus its golden cases and its
generated page). The rule modules import LibCST lazily, so this stays cheap.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from stridelint.rules.base import Rule

_RULE_MODULE = re.compile(r"sl\d{3}_\w+")


def _discover() -> tuple[type[Rule], ...]:
    found = []
    for module_info in pkgutil.iter_modules(__path__):
        if not _RULE_MODULE.fullmatch(module_info.name):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        # `type(value)`, not `isinstance`: the latter reads `__class__`, which would load the
        # lazily imported modules (LibCST, the analysis) a rule module holds.
        rules = [
            value for value in vars(module).values()
            if issubclass(type(value), type) and issubclass(value, Rule) and value is not Rule
            and value.__module__ == module.__name__
        ]  # fmt: skip
        if len(rules) != 1:
            raise ImportError(f"{module.__name__} must define exactly one Rule, not {len(rules)}")
        code = rules[0].code
        if module_info.name[:5] != code.lower():
            raise ImportError(f"{module.__name__} defines {code}: name the module after its code")
        found.append(rules[0])
    return tuple(sorted(found, key=lambda rule: rule.code))


ALL_RULES: tuple[type[Rule], ...] = _discover()
RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
