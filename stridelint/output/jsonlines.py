"""JSON Lines: the JSON format's objects, one compact object per line, for streaming tools."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Mapping, Sequence

from stridelint.output.json import records

if TYPE_CHECKING:
    from stridelint.output import CheckedFile, RenderOptions
    from stridelint.rules.base import Rule


def render(
    files: Sequence[CheckedFile], rules: Mapping[str, type[Rule]], options: RenderOptions
) -> str:
    return "".join(
        json.dumps(record, separators=(",", ":"), sort_keys=True) + "\n"
        for record in records(files, rules)
    )
