"""Rewrite golden cases' `.expect`, `.after.py` and `.unsafe.py` from the current engine.

    python -m tests.golden.regenerate                       # every case under fixes/
    python -m tests.golden.regenerate SL101/any_without_dim SL102/keepdim_true
    python -m tests.golden.regenerate SL201 'SL101/already_fixed_*'   # a rule, a glob
    python -m tests.golden.regenerate --check [CASE_IDS...] # write nothing; exit 1 if stale
    python -m tests.golden.regenerate --diff  [CASE_IDS...] # also print each change as a diff

A CASE_ID is `CODE/NAME` (the pytest id of tests/golden/test_corpus.py), a rule code (all of
its cases) or a shell-style pattern over case ids. Each file that changes is printed with a
status letter: `A` created, `M` modified, `D` deleted (the output it held no longer
differs: `.after.py` when the safe fixes change nothing, `.unsafe.py` when the unsafe fixes
add nothing). Files already right are not touched. Review the result like any snapshot
change (`git diff fixes/`) before committing it.

Exit status: 0 (with --check: nothing stale), 1 (--check: something would change), 2 (a
CASE_ID that matches no case).
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tests.golden.corpus import FIXES, OUTPUT_SUFFIXES, Case, cases, outputs


@dataclass(frozen=True)
class Change:
    path: Path
    status: str  # "A", "M" or "D"
    old: bytes | None
    new: bytes | None


def select(all_cases: Sequence[Case], case_ids: Sequence[str]) -> list[Case]:
    """The cases the ids name, in corpus order; ValueError naming any id that matches none."""
    if not case_ids:
        return list(all_cases)
    chosen: set[str] = set()
    unmatched = []
    for wanted in case_ids:
        wanted = wanted.strip("/")
        hits = [
            case.id for case in all_cases
            if case.id == wanted or case.code == wanted or fnmatch.fnmatchcase(case.id, wanted)
        ]  # fmt: skip
        if not hits:
            unmatched.append(wanted)
        chosen.update(hits)
    if unmatched:
        raise ValueError(f"no golden case matches: {', '.join(unmatched)}")
    return [case for case in all_cases if case.id in chosen]


def stale_files(case: Case) -> list[Change]:
    """The case's output files whose content differs from the current engine's output."""
    changes = []
    for suffix, new in outputs(case).items():
        path = case.file(suffix)
        old = path.read_bytes() if path.exists() else None
        if old == new:
            continue
        status = "A" if old is None else "D" if new is None else "M"
        changes.append(Change(path, status, old, new))
    return changes


def apply(change: Change) -> None:
    if change.new is None:
        change.path.unlink()
    else:
        change.path.write_bytes(change.new)


def unified_diff(change: Change, relative_to: Path) -> str:
    inside = change.path.is_relative_to(relative_to)
    name = str(change.path.relative_to(relative_to) if inside else change.path)
    old = (change.old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = (change.new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old, new,
        "/dev/null" if change.old is None else f"a/{name}",
        "/dev/null" if change.new is None else f"b/{name}",
    )  # fmt: skip
    no_newline = "\n\\ No newline at end of file\n"
    return "".join(line if line.endswith("\n") else line + no_newline for line in lines)


def regenerate(
    selected: Iterable[Case], *, write: bool = True, show_diff: bool = False,
    out: TextIO | None = None, root: Path | None = None,
) -> list[Change]:  # fmt: skip
    """Bring the selected cases up to date (unless `write` is False); print and return the changes."""
    out = out or sys.stdout
    root = root or FIXES.parent
    changes: list[Change] = []
    checked = 0
    touched: set[str] = set()
    for case in selected:
        checked += 1
        for change in stale_files(case):
            changes.append(change)
            touched.add(case.id)
            shown = change.path.relative_to(root) if change.path.is_relative_to(root) else change.path
            print(f"{change.status} {shown}", file=out)
            if show_diff:
                out.write(unified_diff(change, root))
            if write:
                apply(change)
    verb = "changed" if write else "would change"
    print(f"{len(changes)} file(s) in {len(touched)} of {checked} case(s) {verb}.", file=out)
    return changes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.golden.regenerate",
        description="Rewrite golden .expect/.after.py/.unsafe.py files from the current engine.",
    )
    parser.add_argument("case_ids", nargs="*", metavar="CASE_ID",
                        help="CODE/NAME, a rule code, or a glob over case ids (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if any file would change")
    parser.add_argument("--diff", action="store_true", help="print each change as a unified diff")
    args = parser.parse_args(argv)
    try:
        selected = select(cases(), args.case_ids)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    changes = regenerate(selected, write=not args.check, show_diff=args.diff)
    return 1 if args.check and changes else 0


if __name__ == "__main__":
    sys.exit(main())
