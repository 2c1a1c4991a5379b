"""Import a module on first attribute access (stdlib `importlib.util.LazyLoader`).

Rule modules name LibCST and the analysis at module level, but the registry must import
without them: printing a finding needs a rule's name and page, not a parser (0.8 s of imports).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_import(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
