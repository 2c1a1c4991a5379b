"""A rule's page, as `stridelint rule CODE` prints it and docs/rules/CODE.md stores it.

`python -m stridelint.rules.pages docs/rules` rewrites the docs from the rules' own text; a
test fails when a stored page is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from stridelint.rules import ALL_RULES
from stridelint.rules.base import PAGE_SECTIONS, Rule

_FIX_WORDS = {"none": "No fix is available.", "sometimes": "A fix is sometimes available.",
              "always": "A fix is always available."}


def render_page(rule: type[Rule]) -> str:
    return (
        f"# {rule.name} ({rule.code})\n\n"
        f"{rule.summary}. {_FIX_WORDS[rule.fix_availability]}\n\n"
        f"{rule.page()}\n"
    )


def missing_sections(rule: type[Rule]) -> list[str]:
    page = rule.page()
    return [section for section in PAGE_SECTIONS if f"## {section}\n" not in page]


def render_index() -> str:
    rows = "".join(
        f"| [{r.code}]({r.code}.md) | {r.name} | {r.fix_availability} | {r.summary} |\n"
        for r in ALL_RULES
    )
    return "# Rules\n\n| code | name | fix | summary |\n| --- | --- | --- | --- |\n" + rows


def expected_files() -> dict[str, str]:
    files = {f"{rule.code}.md": render_page(rule) for rule in ALL_RULES}
    files["index.md"] = render_index()
    return files


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "docs/rules")
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in expected_files().items():
        (folder / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
