"""Rule pages: complete, and the stored docs match the rules' own text."""

from pathlib import Path

import pytest

from stridelint.rules import ALL_RULES, RULES_BY_CODE
from stridelint.rules.pages import expected_files, missing_sections

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_every_rule_page_has_every_section(rule):
    assert missing_sections(rule) == []


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_rule_identity_is_well_formed(rule):
    assert rule.code[:2] == "SL" and rule.code[2:].isdigit() and len(rule.code) == 5
    assert rule.name == rule.name.lower() and " " not in rule.name
    assert not rule.summary.endswith(".")
    assert rule.fix_availability in ("none", "sometimes", "always")


def test_codes_are_unique():
    assert len(RULES_BY_CODE) == len(ALL_RULES)


def test_each_rule_lives_in_a_module_named_after_its_code():
    for rule in ALL_RULES:
        module = rule.__module__.rsplit(".", 1)[-1]
        assert module.startswith(rule.code.lower() + "_"), module
        assert module == f"{rule.code.lower()}_{rule.name.replace('-', '_')}"


@pytest.mark.parametrize("name", sorted(expected_files()))
def test_generated_docs_are_up_to_date(name):
    stored = DOCS / name
    assert stored.exists(), "run: python -m stridelint.rules.pages docs/rules"
    assert stored.read_text(encoding="utf-8") == expected_files()[name], (
        "out of date; run: python -m stridelint.rules.pages docs/rules"
    )
