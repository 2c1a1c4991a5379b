"""Runtime companion of the linter: static analysis says an op may materialize a broadcast
tensor; `watch()` records the ops that did.

`watch` is imported on first use, so importing this package (as the pytest plugin does in every
run) does not import torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stridelint.runtime.report import Event

if TYPE_CHECKING:
    from stridelint.runtime.watcher import Watcher, watch

__all__ = ["Event", "Watcher", "watch"]


def __getattr__(name: str) -> Any:
    if name in ("watch", "Watcher"):
        from stridelint.runtime import watcher

        return getattr(watcher, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
