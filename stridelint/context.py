"""What a rule sees of one file: its text, its tree, the shared analysis facts and the config."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from stridelint.analysis.module import ModuleFacts
from stridelint.source import SourceText
from stridelint.transforms.style import DEFAULT_STYLE, FixStyle


@dataclass
class RuleContext:
    source: SourceText
    module: cst.Module
    scope: str = "wrappers"
    broadcast_hints: tuple[str, ...] = ()
    wrapper_decorators: tuple[str, ...] = ()
    fix_style: FixStyle = DEFAULT_STYLE

    @cached_property
    def facts(self) -> ModuleFacts:
        """Computed on first use, once per module, whichever rule asks first."""
        return ModuleFacts(
            self.module,
            self.source,
            broadcast_hints=self.broadcast_hints,
            wrapper_decorators=self.wrapper_decorators,
        )
