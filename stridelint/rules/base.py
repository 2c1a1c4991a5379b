"""What every rule is: a code, a name, a page of documentation, a detector and maybe a fix."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Iterator

if TYPE_CHECKING:
    from stridelint.context import RuleContext
    from stridelint.findings import Finding

PAGE_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety")

# What can start a rule's findings. The engine derives its pre-filter from these: LibCST and
# the analysis run on a file only when an enabled BROADCAST rule may fire on it.
BROADCAST = "broadcast"  # a broadcast fact the analysis can reach: `check(ctx)` (prefilter.py)
SUPPRESSIONS = "suppressions"  # suppression comments, after every other rule: `check_suppressions`
SYNTAX = "syntax"  # the file does not parse: `check_syntax`
DOCS_URL = "https://stridelint.dev/rules/{code}"


class Rule:
    """Base class. The subclass docstring is the rule's page, in Markdown, with PAGE_SECTIONS."""

    code: ClassVar[str]
    name: ClassVar[str]  # kebab-case
    summary: ClassVar[str]  # one line, no trailing period
    fix_availability: ClassVar[str] = "none"  # "none" | "sometimes" | "always"
    severity: ClassVar[str] = "warning"  # "warning" | "error" (SARIF level, GitHub annotation)
    trigger: ClassVar[str] = BROADCAST

    @classmethod
    def page(cls) -> str:
        import inspect  # the docs and `stridelint rule` only: a check never reads the pages

        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def url(cls) -> str:
        return DOCS_URL.format(code=cls.code)

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        raise NotImplementedError
