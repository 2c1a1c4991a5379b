"""Recall and precision of stridelint on real kernel-library code, scored against hand-judged cases.

    python benchmarks/real_corpus.py                      # download (once), lint, score
    python benchmarks/real_corpus.py --markdown           # the same, tables in Markdown
    python benchmarks/real_corpus.py --whole              # also lint every file of each library
    python benchmarks/real_corpus.py --cache-dir DIR --json results.json

The cases (`benchmarks/real_corpus_cases.toml`) name a library, its pinned version, a file inside
the wheel, the enclosing function and the line of an op judged by reading the code: a *positive*
materializes a possibly broadcast (stride-0) tensor, a *negative* looks similar but does not. The
script downloads each pinned wheel with `pip download --no-deps` into a cache outside the
repository (default `~/.cache/stridelint-corpus`, or `$STRIDELINT_CORPUS_CACHE`, or
`--cache-dir`), unpacks its `.py` files, runs `stridelint check --output-format json` on the
files the cases reference -- once with the default settings and once with `scope = "all"` -- and
scores every case.

Matching rule (`case_matches`): a finding matches a case when it is in the same file, its
innermost enclosing function (dotted with its classes and outer functions, computed with `ast`
from the finding's row) is the case's function, and the case's line is at most `LINE_WINDOW` (3)
lines away from the finding's span (its row .. its end row; 0 when the line is inside the span).
The window absorbs a finding reported at the start of a multi-line statement or on the op that
feeds or consumes the materializing one; requiring the same function keeps a finding in a
neighbouring function from counting. SL900 (syntax error) never matches.

A positive with a matching finding is a true positive, without one a false negative; a negative
with a matching finding is a false positive, without one it stays clean. Printed: recall over
positives (overall, inside kernel wrappers, outside them, and without the `copy_kept` positives:
copies whose result is returned, stored, written in place or handed to a dense-layout consumer),
leaving out the `small` positives (expanded to one dim only, which size-aware findings skip on
purpose; they are counted on a line of their own), the share of negatives that stay clean,
precision over the flagged cases, the per-case table, and the missed positives by family.

Only the standard library is imported at module level, so the scorer (`score`, `case_matches`)
can be imported by the tests without downloads.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
DEFAULT_CASES = HERE / "real_corpus_cases.toml"
DEFAULT_CACHE = Path(
    os.environ.get("STRIDELINT_CORPUS_CACHE", "~/.cache/stridelint-corpus")
).expanduser()
LINE_WINDOW = 3
IGNORED_CODES = frozenset({"SL900"})
SETTINGS = {"default": None, "all": 'scope = "all"\n', "low": "low-severity = true\n"}
ANALYSIS_ERRORS: list[str] = []  # stderr lines of files stridelint could not analyse


# --------------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True)
class Case:
    id: str
    library: str
    version: str
    path: str  # inside the wheel
    function: str
    line: int
    family: str
    expected: str  # "positive" | "negative"
    in_wrapper: bool
    reason: str = ""
    # A copy whose result is returned, stored, written in place, viewed or handed to a consumer
    # that assumes a dense layout (SL302 reports these; SL301 does not).
    copy_kept: bool = False
    # Expanded to one dim only (a scalar scale repeated per expert), or over per-step dims only
    # (batch, heads, groups, state size): real, but as small as those dims, so size-aware
    # findings leave it out on purpose. Scored apart from the headline.
    small: bool = False


@dataclass(frozen=True)
class Finding:
    path: str  # same convention as Case.path
    row: int
    end_row: int
    code: str
    function: str | None = None  # innermost enclosing function, filled by `attach_functions`


@dataclass
class CaseResult:
    case: Case
    found: bool
    codes: tuple[str, ...]


@dataclass
class Score:
    results: list[CaseResult] = field(default_factory=list)

    def _count(
        self,
        expected: str,
        found: bool,
        wrapper: bool | None = None,
        kept: bool | None = None,
        small: bool | None = False,
    ) -> int:
        """Cases by outcome; `small=False` (the default) leaves out the one-dim positives,
        `small=None` counts every case."""
        return sum(
            1
            for r in self.results
            if r.case.expected == expected
            and r.found == found
            and (wrapper is None or r.case.in_wrapper == wrapper)
            and (kept is None or r.case.copy_kept == kept)
            and (small is None or r.case.small == small)
        )

    @property
    def tp(self) -> int:
        return self._count("positive", True)

    @property
    def fn(self) -> int:
        return self._count("positive", False)

    @property
    def fp(self) -> int:
        return self._count("negative", True)

    @property
    def tn(self) -> int:
        return self._count("negative", False)

    def recall(
        self, wrapper: bool | None = None, kept: bool | None = None, small: bool | None = False
    ) -> float | None:
        """Recall over the positives (not the one-dim ones unless `small` says so), optionally
        only those in (or out of) wrappers and those that are (or are not) kept copies."""
        hit = self._count("positive", True, wrapper, kept, small)
        total = hit + self._count("positive", False, wrapper, kept, small)
        return hit / total if total else None

    def negatives_clean(self) -> float | None:
        total = self.tn + self.fp
        return self.tn / total if total else None

    def precision(self) -> float | None:
        flagged = self.tp + self.fp
        return self.tp / flagged if flagged else None

    def summary(self) -> dict:
        return {
            "positives": self.tp + self.fn,
            "positives_in_wrappers": self._count("positive", True, True)
            + self._count("positive", False, True),
            "negatives": self.tn + self.fp,
            "tp": self.tp,
            "fn": self.fn,
            "fp": self.fp,
            "tn": self.tn,
            "tp_in_wrappers": self._count("positive", True, True),
            "recall": self.recall(),
            "recall_in_wrappers": self.recall(True),
            "recall_outside_wrappers": self.recall(False),
            "positives_not_kept_copies": self._count("positive", True, kept=False)
            + self._count("positive", False, kept=False),
            "tp_not_kept_copies": self._count("positive", True, kept=False),
            "recall_without_kept_copies": self.recall(kept=False),
            "recall_in_wrappers_without_kept_copies": self.recall(True, False),
            "positives_small": self._count("positive", True, small=True)
            + self._count("positive", False, small=True),
            "tp_small": self._count("positive", True, small=True),
            "recall_with_small": self.recall(small=None),
            "negatives_clean": self.negatives_clean(),
            "precision": self.precision(),
        }


# --------------------------------------------------------------------------------------------
# Scoring (pure: no files, no processes)


def function_spans(source: str) -> list[tuple[int, int, str]]:
    """(first line, last line, dotted name) of every function in `source`, outer ones first.

    The dotted name joins the enclosing classes and functions: `Cls.method`, `outer.inner`."""
    spans: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + (child.name,)
                if not isinstance(child, ast.ClassDef):
                    start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    spans.append((start, child.end_lineno or child.lineno, ".".join(name)))
                visit(child, name)
            else:
                visit(child, prefix)

    visit(ast.parse(source), ())
    return spans


def function_at(spans: Sequence[tuple[int, int, str]], line: int) -> str | None:
    """The innermost function whose lines contain `line`, or None at module level."""
    best: tuple[int, int, str] | None = None
    for start, end, name in spans:
        if start <= line <= end and (best is None or start >= best[0]):
            best = (start, end, name)
    return best[2] if best else None


def _same_function(recorded: str, found: str | None) -> bool:
    if found is None:
        return False
    if recorded == found:
        return True
    # A case may name the bare function when its class or outer function does not matter.
    return "." not in recorded and found.rsplit(".", 1)[-1] == recorded


def case_matches(case: Case, finding: Finding, window: int = LINE_WINDOW) -> bool:
    """Whether `finding` counts as stridelint reporting `case` (see the module docstring)."""
    if finding.code in IGNORED_CODES or finding.path != case.path:
        return False
    if not _same_function(case.function, finding.function):
        return False
    first, last = finding.row, max(finding.row, finding.end_row)
    distance = max(first - case.line, case.line - last, 0)  # 0 inside the finding's span
    return distance <= window


def attach_functions(findings: Iterable[Finding], sources: Mapping[str, str]) -> list[Finding]:
    """Fill each finding's enclosing function from the source of its file (path -> text)."""
    cache: dict[str, list[tuple[int, int, str]]] = {}
    out = []
    for f in findings:
        if f.path not in cache:
            text = sources.get(f.path)
            try:
                cache[f.path] = function_spans(text) if text is not None else []
            except SyntaxError:
                cache[f.path] = []
        out.append(Finding(f.path, f.row, f.end_row, f.code, function_at(cache[f.path], f.row)))
    return out


def score(cases: Sequence[Case], findings: Sequence[Finding], window: int = LINE_WINDOW) -> Score:
    """Match every case against findings whose `function` is already set (`attach_functions`)."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    result = Score()
    for case in cases:
        hits = [f for f in by_path.get(case.path, []) if case_matches(case, f, window)]
        result.results.append(CaseResult(case, bool(hits), tuple(sorted({f.code for f in hits}))))
    return result


# --------------------------------------------------------------------------------------------
# Cases, download, unpack


def load_cases(path: Path = DEFAULT_CASES) -> tuple[dict[str, str], list[Case]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    libraries: dict[str, str] = dict(data.get("libraries", {}))
    cases = [Case(**entry) for entry in data.get("case", [])]
    ids = [c.id for c in cases]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"{path}: duplicate case ids")
    for c in cases:
        if c.expected not in ("positive", "negative"):
            raise SystemExit(f"{path}: case {c.id}: expected must be positive or negative")
        if libraries.get(c.library) != c.version:
            raise SystemExit(
                f"{path}: case {c.id}: {c.library} {c.version} is not the pinned version"
            )
    return libraries, cases


def _wheel_stem(name: str) -> str:
    return name.replace("-", "_").replace(".", "_")


def library_root(cache: Path, name: str, version: str) -> Path:
    return cache / "src" / f"{_wheel_stem(name)}-{version}"


def fetch(cache: Path, name: str, version: str, offline: bool = False) -> Path:
    """Download (once) and unpack the .py files of NAME==VERSION's wheel; return their root."""
    root = library_root(cache, name, version)
    if (root / ".complete").exists():
        return root
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    pattern = f"{_wheel_stem(name)}-{version}-*.whl"
    found = sorted(wheels.glob(pattern))
    if not found:
        if offline:
            raise SystemExit(f"{name}=={version}: not in {wheels} and --offline was given")
        print(f"downloading {name}=={version} ...", file=sys.stderr)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--quiet", "-d", str(wheels), f"{name}=={version}"]  # fmt: skip
        subprocess.run(cmd, check=True)
        found = sorted(wheels.glob(pattern))
        if not found:
            raise SystemExit(f"{name}=={version}: pip saved no wheel matching {pattern}")
    with zipfile.ZipFile(found[0]) as wheel:
        members = [m for m in wheel.namelist() if m.endswith(".py")]
        for member in members:
            wheel.extract(member, root)
    (root / ".complete").write_text(found[0].name + "\n")
    return root


# --------------------------------------------------------------------------------------------
# Linting


def checkout_env(**extra: str) -> dict[str, str]:
    """The environment (with `extra` set) that makes `python -m stridelint` import this
    checkout's package, whatever the current directory (which `-m` would put first on the
    path) holds."""
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parent), env.get("PYTHONPATH")]))
    return env


def run_stridelint(paths: Sequence[Path], setting: str, workdir: Path, jobs: int = 1) -> list[dict]:
    """`stridelint check --output-format json` on `paths` with one of SETTINGS; the raw findings."""
    cmd = [sys.executable, "-m", "stridelint", "check", "--output-format", "json", "--no-cache",
           "--exit-zero", "-q", "-j", str(jobs)]  # fmt: skip
    text = SETTINGS[setting]
    if text is None:
        cmd.append("--isolated")
    else:
        config = workdir / f"stridelint-{setting}.toml"
        config.write_text(text)
        cmd += ["--config", str(config)]
    findings: list[dict] = []
    chunk = 200  # keep the command line short
    for i in range(0, len(paths), chunk):
        proc = subprocess.run(
            cmd + [str(p) for p in paths[i : i + chunk]], capture_output=True, text=True,
            cwd=workdir, env=checkout_env(),
        )
        out = proc.stdout.strip()
        try:
            batch = json.loads(out) if out else []
        except json.JSONDecodeError:
            batch = None
        # Exit 2 with a JSON report: some files could not be analysed (their errors are on
        # stderr); the other files' findings still count, and the errors are shown.
        if batch is None or proc.returncode not in (0, 1, 2):
            sys.stderr.write(proc.stderr)
            raise SystemExit(f"stridelint exited {proc.returncode}")
        if proc.returncode == 2:
            errors = [line for line in proc.stderr.splitlines() if line.strip()]
            ANALYSIS_ERRORS.extend(errors)
            sys.stderr.write("".join(f"warning: {line}\n" for line in errors))
        findings += batch
    return findings


def to_findings(
    raw: Iterable[dict], roots: Mapping[Path, str]
) -> tuple[list[Finding], dict[str, str]]:
    """Findings keyed `LIBRARY:path-in-wheel`, and the source text of each such file."""
    findings, sources = [], {}
    for item in raw:
        filename = Path(item["filename"]).resolve()
        for root, key in roots.items():
            try:
                rel = filename.relative_to(root)
            except ValueError:
                continue
            path = f"{key}:{rel.as_posix()}"
            if path not in sources:
                sources[path] = filename.read_text(encoding="utf-8", errors="replace")
            end = (item.get("end_location") or item["location"])["row"]
            findings.append(Finding(path, item["location"]["row"], end, item["code"]))
            break
    return findings, sources


def keyed(case: Case) -> Case:
    """The case with its path prefixed by its library, as `to_findings` keys findings."""
    return Case(**{**case.__dict__, "path": f"{case.library}:{case.path}"})


# --------------------------------------------------------------------------------------------
# Report


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def summary_lines(name: str, s: Score) -> list[str]:
    m = s.summary()
    return [
        f"[{name}] recall {_pct(m['recall'])} ({m['tp']}/{m['positives']} positives found); "
        f"in wrappers {_pct(m['recall_in_wrappers'])} "
        f"({m['tp_in_wrappers']}/{m['positives_in_wrappers']}); "
        f"outside wrappers {_pct(m['recall_outside_wrappers'])}",
        f"[{name}] recall without kept copies {_pct(m['recall_without_kept_copies'])} "
        f"({m['tp_not_kept_copies']}/{m['positives_not_kept_copies']}); "
        f"in wrappers {_pct(m['recall_in_wrappers_without_kept_copies'])}",
        f"[{name}] one-dim (small) positives found {m['tp_small']}/{m['positives_small']} "
        f"(left out on purpose); recall counting them {_pct(m['recall_with_small'])}",
        f"[{name}] negatives clean {_pct(m['negatives_clean'])} ({m['tn']}/{m['negatives']}); "
        f"precision over flagged cases {_pct(m['precision'])} ({m['tp']}/{m['tp'] + m['fp']})",
    ]


def table(scores: Mapping[str, Score], markdown: bool) -> list[str]:
    names = list(scores)
    first = scores[names[0]]
    header = ["id", "library", "file:line", "family", "wrapper", "expected", "kept copy", "one-dim"]
    for n in names:
        header += [f"found ({n})", f"codes ({n})"]
    rows = []
    for i, r in enumerate(first.results):
        c = r.case
        path = c.path.split(":", 1)[1] if c.path.startswith(f"{c.library}:") else c.path
        wrapper, kept = ("yes" if c.in_wrapper else "no"), ("yes" if c.copy_kept else "")
        small = "yes" if c.small else ""
        row = [c.id, c.library, f"{path}:{c.line}", c.family, wrapper, c.expected, kept, small]
        for n in names:
            rr = scores[n].results[i]
            row += ["yes" if rr.found else "no", ",".join(rr.codes) or "-"]
        rows.append(row)
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(row) + " |" for row in rows]
        return out
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]

    def fmt(row: Sequence[str]) -> str:
        return "  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True))

    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(row) for row in rows]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--settings", default="default,all", help="comma-separated: default, all, low (low-severity = true)")
    ap.add_argument("--whole", action="store_true", help="also lint every .py file of each library")
    ap.add_argument("--offline", action="store_true", help="use cached wheels only")
    ap.add_argument("--markdown", action="store_true", help="print the per-case table in Markdown")
    ap.add_argument("--json", type=Path, help="write summaries and per-case results here")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="stridelint worker processes")
    args = ap.parse_args(argv)

    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    for s in settings:
        if s not in SETTINGS:
            ap.error(f"unknown setting {s!r}")
    cache = args.cache_dir.expanduser().resolve()
    libraries, cases = load_cases(args.cases)
    roots = {lib: fetch(cache, lib, ver, args.offline).resolve() for lib, ver in libraries.items()}
    missing = [c.id for c in cases if not (roots[c.library] / c.path).is_file()]
    if missing:
        raise SystemExit(f"case files missing from the wheels: {', '.join(missing)}")
    root_keys = {root: lib for lib, root in roots.items()}
    files = sorted({roots[c.library] / c.path for c in cases})
    keyed_cases = [keyed(c) for c in cases]

    scores: dict[str, Score] = {}
    report: dict = {"libraries": libraries, "line_window": LINE_WINDOW, "settings": {}}
    with tempfile.TemporaryDirectory() as work:
        for setting in settings:
            raw = run_stridelint(files, setting, Path(work), args.jobs)
            findings, sources = to_findings(raw, root_keys)
            scores[setting] = score(keyed_cases, attach_functions(findings, sources))
            report["settings"][setting] = {
                "summary": scores[setting].summary(),
                "findings_in_case_files": len(raw),
                "analysis_errors": list(ANALYSIS_ERRORS),
            }
            ANALYSIS_ERRORS.clear()
            if args.whole:
                whole: dict[str, int] = {}
                for lib, root in roots.items():
                    lib_files = sorted(p for p in root.rglob("*.py") if p.is_file())
                    whole[lib] = len(run_stridelint(lib_files, setting, Path(work), args.jobs))
                report["settings"][setting]["whole_library_findings"] = whole
                report["settings"][setting]["whole_library_errors"] = list(ANALYSIS_ERRORS)
                ANALYSIS_ERRORS.clear()

    positives = sum(c.expected == "positive" for c in cases)
    print(
        f"{len(cases)} cases ({positives} positive) in {len(files)} files of "
        f"{len(libraries)} libraries; line window {LINE_WINDOW}"
    )
    for setting, s in scores.items():
        for line in summary_lines(setting, s):
            print(line)
        errors = report["settings"][setting]["analysis_errors"]
        if errors:
            print(
                f"[{setting}] WARNING: {len(errors)} file(s) could not be analysed; "
                "their cases count as not found"
            )
        if args.whole:
            whole = report["settings"][setting]["whole_library_findings"]
            print(f"[{setting}] findings per whole library: {whole}")
    print()
    for line in table(scores, args.markdown):
        print(line)
    for setting, s in scores.items():
        missed: dict[str, list[str]] = {}
        for r in s.results:
            if r.case.expected == "positive" and not r.found and not r.case.small:
                missed.setdefault(r.case.family, []).append(r.case.id)
        print(f"\n[{setting}] missed positives by family:")
        for family, ids in sorted(missed.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"  {family} ({len(ids)}): {' '.join(ids)}")
    if args.json:
        report["cases"] = [
            {**r.case.__dict__, **{f"found_{n}": scores[n].results[i].found for n in scores},
             **{f"codes_{n}": list(scores[n].results[i].codes) for n in scores}}
            for i, r in enumerate(next(iter(scores.values())).results)
        ]  # fmt: skip
        for entry, case in zip(report["cases"], cases, strict=True):
            entry["path"] = case.path
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
