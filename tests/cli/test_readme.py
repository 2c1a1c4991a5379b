"""The README's rule table is where a newcomer looks first: it must list every rule."""

from __future__ import annotations

import re
from pathlib import Path

from stridelint.rules import ALL_RULES

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_rule_table_lists_every_rule_with_its_name():
    rows = re.findall(r"^\| (SL\d{3}) \| ([a-z-]+) \|", README.read_text(), re.MULTILINE)
    assert rows == [(rule.code, rule.name) for rule in ALL_RULES]
