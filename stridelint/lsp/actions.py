"""Code actions: a quick fix per finding's fix (unsafe ones say so), a `# noqa` quick fix,
and a "fix all" source action that applies what `stridelint check --fix` would."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from lsprotocol import types

from stridelint.findings import Applicability
from stridelint.lsp.convert import SOURCE, Positions, applies, replacement, text_edits

if TYPE_CHECKING:
    from stridelint.findings import Finding

FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"
QUICK_FIX_KIND = types.CodeActionKind.QuickFix.value
KINDS = (QUICK_FIX_KIND, FIX_ALL_KIND)


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """LSP kinds are hierarchical: asking for `source.fixAll` (or `source`) includes ours."""
    if not only:
        return True
    return any(kind == prefix or kind.startswith(f"{prefix}.") for prefix in only)


def _edit(uri: str, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={uri: edits})


def fix_title(finding: Finding) -> str:
    assert finding.fix is not None
    title = f"{SOURCE} ({finding.code}): {finding.fix.message}"
    if finding.fix.applicability is Applicability.UNSAFE and "unsafe" not in title.lower():
        title += " (unsafe fix)"
    return title


def quick_fix(finding: Finding, uri: str, positions: Positions,
              diagnostic: types.Diagnostic) -> types.CodeAction | None:
    if finding.fix is None or not applies(finding.fix.applicability):
        return None
    return types.CodeAction(
        title=fix_title(finding),
        kind=QUICK_FIX_KIND,
        diagnostics=[diagnostic],
        edit=_edit(uri, text_edits(finding.fix.edits, positions)),
        # Only a safe fix may be applied by an editor's "apply preferred fix" without a look.
        is_preferred=finding.fix.applicability is Applicability.SAFE,
    )


def noqa_fix(finding: Finding, uri: str, positions: Positions,
             diagnostic: types.Diagnostic) -> types.CodeAction | None:
    from stridelint.noqa import add_noqa

    text, changed = add_noqa(positions.text, [finding])
    if not changed:  # SL900/SL901, a row inside a string, or a bare `# noqa` already there
        return None
    return types.CodeAction(
        title=f"{SOURCE} ({finding.code}): Suppress with `# noqa: {finding.code}`",
        kind=QUICK_FIX_KIND,
        diagnostics=[diagnostic],
        edit=_edit(uri, [replacement(positions.text, text, positions)]),
    )


def fix_all(fixed_text: str, count: int, unsafe: bool, uri: str,
            positions: Positions) -> types.CodeAction | None:
    if fixed_text == positions.text:
        return None
    which = "fixes" if unsafe else "safe fixes"
    return types.CodeAction(
        title=f"{SOURCE}: Apply all {which} ({count})",
        kind=FIX_ALL_KIND,
        edit=_edit(uri, [replacement(positions.text, fixed_text, positions)]),
    )
