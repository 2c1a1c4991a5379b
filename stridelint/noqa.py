"""`--add-noqa`: suppress every current finding with a `# noqa: CODE` on its row.

An existing `# noqa: X` on the row gets the codes appended (other tools' codes are kept); a
bare `# noqa` already covers everything. A row whose end lies inside a multi-line string
cannot take a comment and is left alone.
"""

from __future__ import annotations

import io
import re
import tokenize

from stridelint.findings import Finding

_NOQA_CODES = re.compile(r"(#\s*noqa:\s*)([A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*)", re.I)
_BARE_NOQA = re.compile(r"#\s*noqa(?!:)", re.I)
_NOT_SUPPRESSIBLE = frozenset({"SL900", "SL901"})


def add_noqa(text: str, findings: list[Finding]) -> tuple[str, int]:
    """The text with noqa comments added, and how many rows changed."""
    wanted: dict[int, set[str]] = {}
    for finding in findings:
        if finding.code not in _NOT_SUPPRESSIBLE:
            wanted.setdefault(finding.noqa_row, set()).add(finding.code)
    if not wanted:
        return text, 0
    comments, inside_strings = _comments_and_string_rows(text)
    lines = text.splitlines(keepends=True)
    changed = 0
    for row, codes in sorted(wanted.items()):
        if row in inside_strings or row > len(lines):
            continue
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        comment = comments.get(row)
        if comment is None:
            lines[row - 1] = f"{body}  # noqa: {', '.join(sorted(codes))}{ending}"
        elif _BARE_NOQA.search(comment):
            continue
        elif match := _NOQA_CODES.search(comment):
            present = {c.upper() for c in re.findall(r"[A-Za-z]+[0-9]+", match.group(2))}
            missing = sorted(codes - present)
            if not missing:
                continue
            start = body.rindex(comment) + match.end(2)
            lines[row - 1] = f"{body[:start]}, {', '.join(missing)}{body[start:]}{ending}"
        else:  # another comment: the directive goes after it, where tools look for it
            lines[row - 1] = f"{body}  # noqa: {', '.join(sorted(codes))}{ending}"
        changed += 1
    return "".join(lines), changed


def _comments_and_string_rows(text: str) -> tuple[dict[int, str], set[int]]:
    """Each row's comment, and the rows whose end is inside a multi-line string."""
    comments: dict[int, str] = {}
    inside: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string
        elif token.type == tokenize.STRING and token.end[0] > token.start[0]:
            inside.update(range(token.start[0], token.end[0]))
    return comments, inside
