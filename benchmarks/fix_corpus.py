"""Run `check` and `fix --unsafe-fixes` over every .py file of a tree (copied to a temporary
folder first) and report what a user would worry about: findings per rule, fixes applied,
fixed files that no longer compile, files whose second fix changes them again, crashes.

    python benchmarks/fix_corpus.py DIR [DIR ...] [--json out.json]

Target: 0 broken outputs, 0 crashes, 0 non-idempotent files.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

from stridelint.config import Config
from stridelint.engine import fix_text, lint_text
from stridelint.source import SourceError, decode


def _python_files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.py") if p.is_file() and not p.is_symlink())


def run(trees: list[Path]) -> dict:
    stats: dict = {
        "trees": [str(t) for t in trees], "files": 0, "lines": 0, "undecodable": 0,
        "findings": collections.Counter(), "fixable_files": 0, "fixes_applied": 0,
        "broken_outputs": [], "not_idempotent": [], "crashes": [], "internal_errors": [],
    }  # fmt: skip
    warnings.simplefilter("ignore")  # compile() of old code warns about escapes
    with tempfile.TemporaryDirectory() as scratch:
        for index, tree in enumerate(trees):
            copy = Path(scratch) / f"tree{index}"
            shutil.copytree(tree, copy, symlinks=True, ignore=shutil.ignore_patterns("*.so", "*.pyc"))
            config = Config(root=copy, source=None, scope="all")
            started = time.perf_counter()
            for path in _python_files(copy):
                _one_file(path, config, stats)
            stats.setdefault("seconds", 0.0)
            stats["seconds"] += time.perf_counter() - started
    stats["findings"] = dict(stats["findings"])
    return stats


def _one_file(path: Path, config: Config, stats: dict) -> None:
    stats["files"] += 1
    data = path.read_bytes()
    try:
        source = decode(data)
    except SourceError:
        stats["undecodable"] += 1
        return
    stats["lines"] += source.text.count("\n")
    name = str(path)
    try:
        result = lint_text(source, config, path)
        for finding in result.findings:
            stats["findings"][finding.code] += 1
        stats["internal_errors"] += [f"{name}: {m}" for m in result.internal_errors]
        if not any(f.fix for f in result.findings):
            return
        stats["fixable_files"] += 1
        once = fix_text(source, config, path, unsafe=True)
        stats["fixes_applied"] += once.fixed_count
        stats["internal_errors"] += [f"{name}: {m}" for m in once.internal_errors]
        if once.text != source.text:
            try:
                compile(once.text, name, "exec")
            except SyntaxError as error:
                if _compiles(source.text, name):  # only count breakage the fix caused
                    stats["broken_outputs"].append(f"{name}: {error}")
        twice = fix_text(decode(source.encode(once.text)), config, path, unsafe=True)
        if twice.text != once.text:
            stats["not_idempotent"].append(name)
    except Exception as error:  # the point of this script is to count these
        stats["crashes"].append(f"{name}: {type(error).__name__}: {error}")


def _compiles(text: str, name: str) -> bool:
    try:
        compile(text, name, "exec")
    except SyntaxError:
        return False
    return True


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    stats = run(args.trees)
    summary = {k: (len(v) if isinstance(v, list) else v) for k, v in stats.items() if k != "trees"}
    print(json.dumps(summary, indent=2))
    for key in ("broken_outputs", "not_idempotent", "crashes", "internal_errors"):
        for line in stats[key][:20]:
            print(f"{key}: {line}")
    if args.json:
        args.json.write_text(json.dumps(stats, indent=2))
    return 1 if stats["broken_outputs"] or stats["not_idempotent"] or stats["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
