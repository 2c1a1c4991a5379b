"""The reference Triton reduce kernel that stridelint is validated on (needs torch and triton).

Importing the package needs neither: `stridelint demo` reads the naive hook kept here on a
machine without them. `reduce` is imported on first use. It names both the submodule and its
function, and importing the submodule sets the package attribute to the module, so a plain
module `__getattr__` would hand out the module whenever the submodule was imported first; a
property on the package's class always answers with the function, as the eager import did.
"""

import importlib
import sys
import types

__all__ = ["reduce"]


class _Package(types.ModuleType):
    @property
    def reduce(self):
        if "_reduce" in self.__dict__:  # assigned by a test's monkeypatch, say
            return self.__dict__["_reduce"]
        return importlib.import_module(f"{__name__}.reduce").reduce

    @reduce.setter
    def reduce(self, value) -> None:
        if getattr(value, "__name__", None) == f"{__name__}.reduce":
            return  # the import system binding the submodule, which stays in sys.modules
        self.__dict__["_reduce"] = value


sys.modules[__name__].__class__ = _Package
