"""Files in, findings and fixed sources out.

Reads and decodes each file, parses it once, lets every active rule read the shared facts,
drops suppressed findings, and, when asked, applies fixes to a fixpoint: apply the
non-overlapping fixes, re-parse, re-lint, repeat (bounded). A fix whose result does not
parse is dropped and reported; a file is written atomically (temporary file in the same
folder, then rename), with its mode, encoding, BOM and newlines kept, and never when it
changed on disk since it was read.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import gc
import os
import stat
import symtable
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stridelint import screen
from stridelint.cache import CACHE_DIR_NAME, ResultCache
from stridelint.findings import Edit, FileReport, Finding, Fix
from stridelint.prefilter import may_have_findings, may_have_findings_text
from stridelint.source import SourceError, SourceText, apply_edits, decode
from stridelint.suppression import may_name_a_code, may_skip_file, read_suppressions

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from stridelint.config import Config
    from stridelint.rules.base import Rule
    from stridelint.suppression import Suppressions

MAX_FIX_ROUNDS = 10
_TOO_DEEP = "too deeply nested for the parser; not checked"
# Check every file whole, without the pre-filter and the screen (the speed benchmark's
# reference path; read once, so worker processes inherit it).
_FULL_PATH = os.environ.get("STRIDELINT_FULL_PATH", "") not in ("", "0")


@dataclass(frozen=True)
class FixMode:
    apply: bool = False  # compute and apply fixes (for --fix or --diff)
    unsafe: bool = False  # include unsafe fixes
    write: bool = True  # write fixed files back (False for --diff and stdin)


@dataclass
class LintResult:
    findings: list[Finding]
    internal_errors: list[str] = field(default_factory=list)


def lint_text(
    source: SourceText,
    config: Config,
    path: Path | None,
    *,
    prefilter: bool = True,
    recheck_whole: bool = True,
) -> LintResult:
    """Findings for one decoded file, suppressions applied. Which rules can fire decides what
    runs, in stages, each cheaper and more selective than the next (ARCHITECTURE.md): the
    pre-filter on the interpreter's tree (any broadcast trigger in the file?), the screen on
    the same tree (which functions can a finding involve?), then LibCST and the analysis on
    those functions only; a file where they find something with a fix is checked again
    whole, so its findings and fixes are the full path's. `prefilter=False` (or STRIDELINT_FULL_PATH=1 in
    the environment) parses and analyses every file whole: the tests and the speed benchmark
    use it to prove the stages never change a finding; `recheck_whole=False` returns what the
    screened functions alone give (the tests compare it with the whole file's)."""
    from stridelint import rules  # cheap: rule modules import LibCST lazily
    from stridelint.rules.base import BROADCAST

    suppressions = read_suppressions(source.text) if may_skip_file(source.text) else None
    if suppressions is not None and suppressions.skip_file:
        return LintResult([])
    enabled = [rule for rule in rules.ALL_RULES if config.is_enabled(rule.code, path)]
    finish = functools.partial(
        _with_suppressions,
        enabled=enabled,
        text=source.text,
        suppressions=suppressions,
        config=config,
        path=path,
    )
    if prefilter and not _FULL_PATH:
        if not may_have_findings_text(source.text, config.broadcast_hints) and _compiles(source):
            return finish(LintResult([]))
        try:
            tree = _python_tree(source, path)
        except (MemoryError, RecursionError):  # LibCST's native parser could crash on it
            return LintResult([], [_TOO_DEEP])
        may_fire = any(rule.trigger == BROADCAST for rule in enabled) and (
            tree is None or may_have_findings(tree, config.broadcast_hints)
        )
        if tree is not None and not may_fire:
            return finish(LintResult([]))
        # A file the interpreter rejects goes on to LibCST, which reports the syntax error
        # (at the interpreter's position) or, for syntax newer than this Python, parses it.
        if tree is not None:
            reduced = screen.plan(
                tree,
                source.text,
                config.broadcast_hints,
                scope=config.scope,
                wrapper_decorators=config.wrapper_decorators,
                reference_seeds=config.low_severity or may_name_a_code(source.text),
            )
            if reduced.text is None:
                return finish(LintResult([]))
            if not reduced.whole:
                parsed = _lint_parsed(source, reduced.text, enabled, config, path)
                if parsed is not None and (not recheck_whole or _final(parsed[0])):
                    return finish(parsed[0])
    parsed = _lint_parsed(source, source.text, enabled, config, path)
    assert parsed is not None  # the file's own text always gives an answer
    result, is_syntax_error = parsed
    if is_syntax_error:
        return result
    return finish(result)


def _final(screened: LintResult) -> bool:
    """Whether what the screened functions give is the file's answer: every function a
    finding involves is kept, so its findings, messages and evidence are the whole file's;
    only a fix reads the rest of the module (names in use, where a helper goes), and an
    internal error may come from the reduction: those files are checked again whole."""
    return not screened.internal_errors and all(f.fix is None for f in screened.findings)


def _lint_parsed(
    source: SourceText, text: str, enabled: list[type[Rule]], config: Config, path: Path | None
) -> tuple[LintResult, bool] | None:
    """Parse `text` (the file's own, or the screen's reduction of it, which keeps every
    position and offset) with LibCST once and run the broadcast rules on it; the flag says
    the result is a syntax error. A syntax error is reported for the file's own text; for a
    reduction the answer is None (check it whole). The cycle collector is paused meanwhile,
    as for the interpreter's tree (_python_tree): a sixth of LibCST's parse and the analysis;
    what the analysis leaves in cycles is one file's, collected after. (Not a context
    manager: its generator, made with the collector on, would start a collection.)"""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _lint_parsed_now(source, text, enabled, config, path)
    finally:
        if collecting:
            gc.enable()


def _lint_parsed_now(
    source: SourceText, text: str, enabled: list[type[Rule]], config: Config, path: Path | None
) -> tuple[LintResult, bool] | None:
    # Only files that can have findings pay for importing LibCST and the analysis.
    import libcst as cst

    from stridelint.context import RuleContext
    from stridelint.rules.base import BROADCAST, SYNTAX
    from stridelint.transforms.style import FixStyle

    whole = text is source.text
    syntax_rules = [rule() for rule in enabled if rule.trigger == SYNTAX]
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        if not whole:
            return None
        where = (error.raw_line, error.raw_column + 1, error.message)
        return LintResult([f for r in syntax_rules for f in r.check_syntax(source, path, where)]), True
    except RecursionError:
        return LintResult([], [_TOO_DEEP]), False
    except Exception as error:  # LibCST rejects some inputs (e.g. null bytes) with other errors
        if not whole:
            return None
        where = (1, 1, str(error))
        return LintResult([f for r in syntax_rules for f in r.check_syntax(source, path, where)]), True
    context = RuleContext(
        source,
        module,
        scope=config.scope,
        broadcast_hints=config.broadcast_hints,
        wrapper_decorators=config.wrapper_decorators,
        fix_style=FixStyle(config.line_length, config.helper_module),
    )
    result = LintResult([])
    for rule in enabled:
        if rule.trigger != BROADCAST:
            continue
        try:
            result.findings.extend(rule().check(context))
        except RecursionError:
            result.internal_errors.append(f"{rule.code}: code nested too deeply to analyse")
        except Exception as error:  # one broken rule must not stop the others
            result.internal_errors.append(
                f"internal error in {rule.code}: {type(error).__name__}: {error}"
            )
    return result, False


def _with_suppressions(
    result: LintResult,
    *,
    enabled: list[type[Rule]],
    text: str,
    suppressions: Suppressions | None,
    config: Config,
    path: Path | None,
) -> LintResult:
    """Drop suppressed findings and, without the `low-severity` setting, low-severity ones,
    then let the suppression rules (SL901) see everything raised: a suppression of a hidden
    low-severity finding is still used. The comments (`suppressions`, None when not read
    yet) are read only when they can change the answer: tokenizing a file costs a tenth of
    analysing it, and a `# noqa` with another tool's codes is common."""
    from stridelint.rules.base import SUPPRESSIONS

    if suppressions is None:
        if not result.findings and not may_name_a_code(text):
            return result  # nothing to drop, no code SL901 could find unused
        suppressions = read_suppressions(text)
    raw = result.findings
    result.findings = [
        _without_unfixable_fix(f, config)
        for f in raw
        if not suppressions.suppresses(f.noqa_row, f.code) and (config.low_severity or not f.low)
    ]
    for rule in enabled:
        if rule.trigger == SUPPRESSIONS:
            result.findings += rule().check_suppressions(
                suppressions.rows,
                suppressions.columns,
                raw,
                lambda code: config.is_enabled(code, path),
            )
    result.findings.sort(key=lambda f: (f.start, f.code))
    return result


def _without_unfixable_fix(finding: Finding, config: Config) -> Finding:
    """A rule that `fixable`/`unfixable` rules out keeps its findings but offers no fix, so
    `--fix`, the `[*]` marker, the counts and the JSON `fix` all agree (as in Ruff)."""
    if finding.fix is None or config.is_fixable(finding.code):
        return finding
    return dataclasses.replace(finding, fix=None)


def _python_tree(source: SourceText, path: Path | None) -> ast.Module | None:
    """The interpreter's syntax tree (its parser is native: a fraction of LibCST's cost); None
    for a syntax error. Nesting too deep for it raises MemoryError or RecursionError. The
    cycle collector is paused meanwhile: a syntax tree holds no cycles, and the collector
    would walk its nodes again and again as they are made (a fifth of the parse)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return compile(source.text, str(path or "<stdin>"), "exec", ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError):
        return None
    finally:
        if collecting:
            gc.enable()


def _compiles(source: SourceText) -> bool:
    """Whether the interpreter's parser accepts the file, without building a syntax tree
    object: the syntax check of a file the text screen rules out. Its symbol table is the
    cheapest product of a parse the interpreter offers (a sixth cheaper than bytecode, a
    third cheaper than a tree). Any failure, a scoping error too, sends the file down the
    tree path, which reports what it must."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings belong to the interpreter's run
            symtable.symtable(source.text, "<screen>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError, SystemError):
        return False  # ValueError: null bytes; RecursionError, MemoryError: nesting too deep
    return True


@dataclass
class FixOutcome:
    text: str
    fixed_count: int
    findings: list[Finding]
    internal_errors: list[str]


def fix_text(source: SourceText, config: Config, path: Path | None, unsafe: bool) -> FixOutcome:
    """Apply fixes to a fixpoint; never return text that does not parse."""
    current = source
    fixed = 0
    errors: list[str] = []
    result = lint_text(current, config, path)
    for _ in range(MAX_FIX_ROUNDS):
        fixes = [f.fix for f in result.findings if f.fix and f.fix.applies_under(unsafe)]
        chosen = _non_overlapping(fixes)
        if not chosen:
            break
        accepted, rejected = _apply_checked(current.text, chosen)
        errors.extend(
            f"a fix produced invalid code and was not applied ({fix.message})" for fix in rejected
        )
        if not accepted:
            break
        current = SourceText(apply_edits(current.text, _edits_of(accepted)), source.encoding)
        fixed += len(accepted)
        result = lint_text(current, config, path)
    return FixOutcome(current.text, fixed, result.findings, errors + result.internal_errors)


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end == b.start == b.end:
        return True  # two insertions at one point: their order would be arbitrary
    return a.start < b.end and b.start < a.end or (
        a.start == a.end and b.start < a.start < b.end
    ) or (b.start == b.end and a.start < b.start < a.end)


def _non_overlapping(fixes: list[Fix]) -> list[Fix]:
    """Fixes whose edits overlap no edit of a fix chosen before them, except a shared edit
    identical to one taken (the import or helper several fixes add), which is made once."""
    chosen: list[Fix] = []
    taken: dict[Edit, None] = {}
    for fix in sorted(fixes, key=lambda f: min(e.start for e in f.edits)):
        new = [edit for edit in fix.edits if not (edit.shared and edit in taken)]
        if any(_overlaps(edit, other) for edit in new for other in taken):
            continue
        chosen.append(fix)
        taken.update(dict.fromkeys(new))
    return chosen


def _edits_of(fixes: list[Fix]) -> list[Edit]:
    """The fixes' edits, each edit that several fixes share once."""
    return list(dict.fromkeys(edit for fix in fixes for edit in fix.edits))


def _parses(text: str) -> bool:
    import libcst as cst

    try:
        cst.parse_module(text)
    except Exception:
        return False
    return True


def _apply_checked(text: str, fixes: list[Fix]) -> tuple[list[Fix], list[Fix]]:
    """Apply all fixes if the result parses; otherwise find the ones that break the code."""
    if _parses(apply_edits(text, _edits_of(fixes))):
        return fixes, []
    accepted: list[Fix] = []
    rejected: list[Fix] = []
    for fix in fixes:
        candidate = accepted + [fix]
        if _parses(apply_edits(text, _edits_of(candidate))):
            accepted.append(fix)
        else:
            rejected.append(fix)
    return accepted, rejected


# ---- files --------------------------------------------------------------------------------


def check_bytes(data: bytes, display_path: str, config: Config, path: Path | None,
                mode: FixMode) -> tuple[FileReport, SourceText | None]:
    """Lint (and maybe fix) the bytes of one file; nothing is written here."""
    try:
        source = decode(data)
    except SourceError as error:
        return FileReport(display_path, "", error=str(error)), None
    if not mode.apply:
        result = lint_text(source, config, path)
        report = FileReport(display_path, source.text, result.findings)
        report.internal_errors = result.internal_errors
        return report, source
    outcome = fix_text(source, config, path, mode.unsafe)
    report = FileReport(display_path, outcome.text, outcome.findings, outcome.fixed_count)
    if outcome.text != source.text:
        report.original_source = source.text
    report.internal_errors = outcome.internal_errors
    return report, source


def check_file(
    path: Path, config: Config, mode: FixMode, cache: ResultCache | None = None
) -> FileReport | list[FileReport]:
    """A Python file's report; for a notebook, one report per cell (not cached)."""
    return _check_file_keyed(path, config, mode, cache)[0]


def _check_file_keyed(
    path: Path,
    config: Config,
    mode: FixMode,
    cache: ResultCache | None,
    clean_key: str | None = None,
    indexed: bool = False,
) -> tuple[FileReport | list[FileReport], str | None]:
    """check_file, and the cache key of the file's final content where its report may be
    remembered. `clean_key` is the key the file index recorded for the file when it was
    last clean: the same key is the same answer. With `indexed` (run_files, which records
    the returned key in its index), a clean unchanged file gets no entry of its own."""
    if path.suffix == ".ipynb":
        from stridelint import notebook

        return notebook.check(path, config, mode), None
    display = str(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        return FileReport(display, "", error="is a directory"), None
    except OSError as error:
        return FileReport(display, "", error=error.strerror or str(error)), None
    key = cache.key(config.relative_path(path), data) if cache else None
    if key is not None and key == clean_key:
        return FileReport(display, ""), key
    cached = cache.load(key) if cache and key else None
    if cached == []:  # nothing to show: the text is not needed
        return FileReport(display, ""), key
    if cached is not None and not (
        mode.apply and any(f.fix and f.fix.applies_under(mode.unsafe) for f in cached)
    ):
        try:
            text = decode(data).text
        except SourceError:  # a foreign entry for undecodable bytes: recompute
            text = None
        if text is not None:
            return FileReport(display, text, cached), key
    report, source = check_bytes(data, display, config, path, mode)
    final = data if source is None or report.original_source is None else source.encode(report.source)
    stored = None
    if cache and report.error is None and not report.internal_errors:
        stored = key if final is data else cache.key(config.relative_path(path), final)
        if not (indexed and report.is_clean()):
            cache.store(stored, report.findings)
    if source is None or report.original_source is None or not mode.write:
        return report, stored
    try:
        write_atomically(path, data, final)
    except WriteError as error:
        report.error = f"not fixed: {error}"
    return report, stored


def add_noqa_to_file(path: Path, config: Config) -> tuple[FileReport, int]:
    """Suppress the file's current findings in place; returns the report and the rows changed."""
    from stridelint.noqa import add_noqa

    display = str(path)
    if path.suffix == ".ipynb":
        return FileReport(display, "", error="--add-noqa does not edit notebooks yet"), 0
    try:
        data = path.read_bytes()
        source = decode(data)
    except OSError as error:
        return FileReport(display, "", error=error.strerror or str(error)), 0
    except SourceError as error:
        return FileReport(display, "", error=str(error)), 0
    result = lint_text(source, config, path)
    text, changed = add_noqa(source.text, result.findings)
    report = FileReport(display, text, [], internal_errors=result.internal_errors)
    if not changed:
        return report, 0
    if not _parses(text):
        report.error = "adding noqa comments would break the file; not written"
        return report, 0
    try:
        write_atomically(path, data, source.encode(text))
    except WriteError as error:
        report.error = f"not written: {error}"
        return report, 0
    return report, changed


def default_cache(config: Config, directory: Path | None) -> ResultCache:
    return ResultCache(directory or config.root / CACHE_DIR_NAME, config.fingerprint())


def run_files(
    files: list[Path],
    config: Config,
    mode: FixMode,
    *,
    jobs: int,
    cache: ResultCache | None,
    on_checked: Callable[[], None] | None = None,
) -> list[FileReport]:
    """Check files, in parallel worker processes when it pays; reports keep the files' order.

    With a cache, a file last checked clean whose (mtime, size) did not change since is not
    read at all (a warm run of a whole repository is then one `stat` per file), and files
    last checked with findings, unchanged, are served from their entries here: a pool of
    workers only starts for files the index does not know. A file the index knows as clean
    is read again when its stat changed, and is clean still if its key did not.
    `on_checked` is called once per file as its report arrives (a progress bar's tick).
    """
    index = cache.file_index() if cache else {}
    stamps: dict[int, tuple[int, int] | None] = {}
    clean_keys: dict[int, str | None] = {}
    done: dict[int, list[FileReport]] = {}
    keys: dict[int, str | None] = {}
    unknown = 0  # files to check that are not unchanged entries of the index
    for position, path in enumerate(files):
        stamp = _stamp(path) if cache and path.suffix != ".ipynb" else None
        known = index.get(os.path.abspath(path)) if stamp is not None else None
        if known is not None and known[:2] == stamp and not known[3]:
            done[position] = _ticked(FileReport(str(path), ""), on_checked)
            continue
        stamps[position] = stamp
        clean_keys[position] = known[2] if known is not None and not known[3] else None
        unknown += known is None or known[:2] != stamp or mode.apply
    todo = list(stamps)
    work = functools.partial(_check_file_lean, config=config, mode=mode, cache=cache)
    paths, known_clean = [files[i] for i in todo], [clean_keys[i] for i in todo]
    try:
        if jobs <= 1 or unknown < 8 * jobs:  # a pool costs more than a pre-commit batch
            for i, (report, key) in zip(todo, map(work, paths, known_clean)):
                done[i], keys[i] = _ticked(report, on_checked), key
        else:
            import concurrent.futures  # only a run big enough for a pool pays for its import

            with _ready_to_fork(), concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
                chunks = max(1, min(16, len(todo) // (4 * jobs)))
                results = pool.map(work, paths, known_clean, chunksize=chunks)
                for i, (report, key) in zip(todo, results):
                    done[i], keys[i] = _ticked(report, on_checked), key
    finally:  # a run stopped early (Ctrl-C) keeps what it checked: the index is its record
        if cache and keys:
            _remember(cache, index, files, {i: stamps[i] for i in keys}, keys, done)
    return [report for position in range(len(files)) for report in done[position]]


@contextlib.contextmanager
def _ready_to_fork() -> Iterator[None]:
    """Where the workers start by forking this process, what they share is made ready here
    once: LibCST and the analysis imported (each worker would import them itself, 0.12 s
    CPU, with its first file that needs them; a run big enough for a pool has such files),
    and every object so far frozen out of the cycle collector's reach (a worker's collector
    would walk all it inherits again and again). Elsewhere (spawn, forkserver) a worker
    starts afresh, and this would only add."""
    import multiprocessing

    forking = multiprocessing.get_start_method() == "fork"
    if forking:
        import libcst  # noqa: F401  # what _lint_parsed_now imports (the context: the analysis)

        import stridelint.context  # noqa: F401
        import stridelint.rules.base  # noqa: F401
        import stridelint.transforms.style  # noqa: F401

        gc.freeze()
    try:
        yield
    finally:
        if forking:
            gc.unfreeze()


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _remember(
    cache: ResultCache,
    index: dict[str, tuple[int, int, str, bool]],
    files: list[Path],
    stamps: dict[int, tuple[int, int] | None],
    keys: dict[int, str | None],
    done: dict[int, list[FileReport]],
) -> None:
    """Update the file index with the files this run read, stamped before they were read (a
    change while checking makes the next run read the file again), with the key of what was
    read: a file with nothing to report, or with findings and no error or change, is
    indexed; any other is dropped."""
    before = dict(index)
    for position, stamp in stamps.items():
        name = os.path.abspath(files[position])
        reports, key = done[position], keys[position]
        report = reports[0] if len(reports) == 1 else None
        if (
            stamp is not None and key is not None and report is not None
            and report.is_clean(findings_allowed=True)
        ):  # fmt: skip
            index[name] = (*stamp, key, bool(report.findings))
        else:
            index.pop(name, None)
    if index != before:
        cache.store_file_index(index)


def _check_file_lean(
    path: Path, clean_key: str | None, config: Config, mode: FixMode, cache: ResultCache | None
) -> tuple[FileReport | list[FileReport], str | None]:
    """_check_file_keyed for run_files's index, without the text of a report that has
    nothing to show (no finding, no change): the outputs read a file's text only to show its
    findings or its diff, and a whole repository's text would otherwise stay in memory (and
    cross from the workers)."""
    report, key = _check_file_keyed(path, config, mode, cache, clean_key, indexed=True)
    if isinstance(report, FileReport) and not report.findings and report.original_source is None:
        report.source = ""
    return report, key


def _ticked(
    report: FileReport | list[FileReport], on_checked: Callable[[], None] | None
) -> list[FileReport]:
    """One tick per file; a notebook's per-cell reports come as a list."""
    if on_checked is not None:
        on_checked()
    return report if isinstance(report, list) else [report]


class WriteError(Exception):
    """A fixed file could not be written back (one-line reason)."""


def write_atomically(path: Path, original: bytes, new: bytes) -> None:
    """Replace the file's content, keeping its mode; refuse if it changed since it was read."""
    target = Path(os.path.realpath(path))  # write through symlinks, never over them
    try:
        info = target.stat()
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(
        target, os.W_OK
    ):  # the mode bits too: root may write anything, but a read-only file says "leave me"
        raise WriteError("the file is read-only")
    import tempfile  # a fix's write only

    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(new)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        if target.read_bytes() != original:
            raise WriteError("the file changed on disk while it was being fixed")
        os.replace(temporary, target)
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
