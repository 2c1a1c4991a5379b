"""The `stridelint` command: click options in, engine calls out, exit codes as Ruff's.

Exit status: 0 nothing left to report; 1 findings remain (or `--diff` has a diff, or
`--exit-non-zero-on-fix` fixed something); 2 bad usage, bad configuration, or a file that
could not be read, decoded, analysed or written.
"""

from __future__ import annotations

import difflib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click

from stridelint import __version__
from stridelint.config import SCOPES

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
NO_FILES_WARNING = "stridelint: warning: No Python files found under the given path(s)"


def _selectors(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    return tuple(part.strip().upper() for part in value.split(",") if part.strip())


def _fail(message: str) -> None:
    click.echo(f"stridelint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="stridelint")
def main() -> None:
    """Find and fix ops that materialize broadcast (stride-0) PyTorch tensors."""


def _check_options(command):
    codes = "CODES"
    options = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option("--fix/--no-fix", default=False,
                     help="Apply the safe fixes (and the unsafe ones with --unsafe-fixes)."),
        click.option("--unsafe-fixes/--no-unsafe-fixes", default=None,
                     help="Also apply unsafe fixes, mark them [*] and count them; overrides "
                          "the `unsafe-fixes` setting."),
        click.option("--fix-only", is_flag=True,
                     help="Apply the fixes but report no findings; what remains does not make "
                          "the exit status 1. Implies --fix."),
        click.option("--diff", is_flag=True,
                     help="Print the fixes as a unified diff instead of writing them."),
        click.option("--fixable", metavar=codes,
                     help="Rule codes or prefixes whose fixes may be applied, comma-separated "
                          "(replaces the `fixable` setting)."),
        click.option("--unfixable", metavar=codes,
                     help="Rule codes or prefixes whose fixes are never applied (added to the "
                          "`unfixable` setting)."),
        click.option("--select", metavar=codes,
                     help="Rule codes or prefixes to run, comma-separated (replaces the "
                          "`select` setting)."),
        click.option("--extend-select", metavar=codes,
                     help="Rule codes or prefixes to run in addition to the selection."),
        click.option("--ignore", metavar=codes, help="Rule codes or prefixes not to run."),
        click.option("--scope", type=click.Choice(SCOPES),
                     help="Report possible (not definite) broadcasts in kernel wrappers only, "
                          "or in every function (overrides the `scope` setting)."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain."),
        click.option("--exit-non-zero-on-fix", is_flag=True,
                     help="Exit 1 when a fix was applied, even if no finding remains."),
        click.option("--output-format", type=click.Choice(_formats()), default="concise",
                     show_default=True, help="How findings are printed."),
        click.option("-o", "--output-file", type=click.Path(path_type=Path, dir_okay=False),
                     metavar="FILE", help="Write the report to FILE instead of standard output."),
        click.option("--show-fixes", is_flag=True,
                     help="Print each finding's fix as a diff (concise and full formats)."),
        click.option("--statistics", is_flag=True,
                     help="Print the number of findings per rule instead of the findings (JSON "
                          "with --output-format json or json-lines)."),
        click.option("--show-files", is_flag=True,
                     help="Print the files that would be checked, and exit."),
        click.option("--show-settings", is_flag=True,
                     help="Print the settings in effect, as TOML, and exit."),
        click.option("--config", "config_args", multiple=True, metavar="FILE | KEY=VALUE",
                     help="Use FILE instead of searching for a configuration, or override one "
                          "setting with a TOML pair such as \"scope = 'all'\" (repeatable)."),
        click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
        click.option("--stdin-filename", metavar="NAME",
                     help="Read the source from standard input and report it as NAME (implies "
                          "`-`)."),
        click.option("--force-exclude", is_flag=True,
                     help="Apply `exclude` to paths named on the command line too (as "
                          "pre-commit needs)."),
        click.option("-q", "--quiet", is_flag=True,
                     help="Print the findings only: no summary, no progress bar."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
                     help="Worker processes (default: the number of CPUs)."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache."),
        click.option("--cache-dir", type=click.Path(path_type=Path), metavar="DIR",
                     help="Where the result cache lives (default: .stridelint_cache next to the "
                          "configuration)."),
        click.option("--add-noqa", is_flag=True,
                     help="Add a `# noqa: CODE` comment for every current finding, keeping "
                          "other comments."),
        click.option("--runtime-report", type=click.Path(path_type=Path), metavar="FILE",
                     help="A report written by `pytest --stridelint-runtime-json`: mark the "
                          "findings it confirms and list the runtime events no rule predicted."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _formats() -> tuple[str, ...]:
    from stridelint.output import FORMATS

    return FORMATS


@main.command(short_help="Report (or fix) ops that materialize broadcast tensors.")
@_check_options
def check(**options) -> None:
    """Check PATHS (default: the current directory) for ops that materialize broadcast
    tensors."""
    sys.exit(_guarded(_run_check, **options))


@main.command(short_help="Apply the fixes (the same as `check --fix`).")
@_check_options
def fix(**options) -> None:
    """Check PATHS and apply the fixes (the same as `check --fix`)."""
    options["fix"] = True
    sys.exit(_guarded(_run_check, **options))


def _add_noqa(files: list[Path], config) -> int:
    from stridelint.engine import add_noqa_to_file

    added = 0
    errors = False
    for path in files:
        report, changed = add_noqa_to_file(path, config)
        added += changed
        for message in ([report.error] if report.error else []) + report.internal_errors:
            errors = True
            click.echo(f"stridelint: error: {report.path}: {message}", err=True)
    click.echo(f"Added {added} noqa directive{'' if added == 1 else 's'}.", err=True)
    return EXIT_ERROR if errors else EXIT_CLEAN


def _guarded(command, *args, **options) -> int:
    """A bug must still end in one line and exit 2; STRIDELINT_DEBUG=1 shows the traceback.

    A reader that stops early (`| head`) is not an error: commands that know their status
    handle it themselves; for the others, what was printed stands and the exit is 0.
    """
    try:
        return command(*args, **options)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BrokenPipeError:
        _silence_output()
        return EXIT_CLEAN
    except Exception as error:
        if os.environ.get("STRIDELINT_DEBUG"):
            raise
        click.echo(
            f"stridelint: internal error: {type(error).__name__}: {error} "
            "(set STRIDELINT_DEBUG=1 for the traceback)",
            err=True,
        )
        return EXIT_ERROR


def _silence_output() -> None:
    """Point stdout and stderr at /dev/null once their reader is gone, so the interpreter's
    final flush does not fail a second time with a message of its own."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):  # replaced or closed streams (tests): nothing to protect
            pass
    os.close(devnull)


@dataclass
class _Printout:
    """What a check prints, in order, and the exit status it implies.

    The status is settled before anything is printed, so a reader that goes away early
    (`stridelint check | head -1`) cannot change it. Each chunk goes to "report" (standard
    output, or `--output-file`), "stderr", or "source" (bytes for standard output: the fixed
    text of `-`).
    """

    status: int = EXIT_CLEAN
    chunks: list[tuple[str, str | bytes]] = field(default_factory=list)

    def report(self, text: str) -> None:
        if text:
            self.chunks.append(("report", text))

    def stderr(self, text: str) -> None:
        if text:
            self.chunks.append(("stderr", text))


def _print(printout: _Printout, *, output_file: Path | None, report_to_stderr: bool,
           color: bool) -> int:
    stream = None
    try:
        if output_file is not None:
            try:
                output_file.parent.mkdir(parents=True, exist_ok=True)
                stream = open(output_file, "w", encoding="utf-8")
            except OSError as error:
                _fail(f"--output-file {output_file}: {error.strerror or error}")
        for where, text in printout.chunks:
            if where == "source":
                sys.stdout.buffer.write(text)
                sys.stdout.buffer.flush()
            elif where == "stderr":
                click.echo(text, nl=False, err=True)
            elif stream is not None:
                stream.write(text)
            else:
                click.echo(text, nl=False, err=report_to_stderr, color=color)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_output()
    finally:
        if stream is not None:
            stream.close()
    return printout.status


def _reads_stdin(paths: tuple[Path, ...], stdin_filename: str | None) -> bool:
    """`-` or `--stdin-filename` (which names what arrives on standard input) read stdin."""
    if Path("-") in paths:
        if len(paths) > 1:
            _fail("`-` (standard input) cannot be combined with other paths")
        return True
    if stdin_filename is not None:
        if paths:
            _fail("--stdin-filename names the source read from standard input; "
                  "give no other path (or `-`)")
        return True
    return False


def _settings(config_args, isolated, *, select, extend_select, ignore, fixable, unfixable,
              scope, unsafe_fixes):
    """The configuration file's settings, then `--config KEY=VALUE`, then dedicated flags."""
    from stridelint.config import ConfigError, load_config, split_config_arguments

    try:
        config_file, overrides = split_config_arguments(config_args)
        config = load_config(Path.cwd(), explicit=config_file, isolated=isolated)
        for table in overrides:
            config = config.with_settings(table, "--config ")
        return config.with_overrides(
            select=_selectors(select) or None,
            extend_select=_selectors(extend_select),
            ignore=_selectors(ignore),
            fixable=_selectors(fixable) if fixable is not None else None,
            unfixable=_selectors(unfixable),
            scope=scope,
            unsafe_fixes=unsafe_fixes,
        )
    except ConfigError as error:
        _fail(str(error))


def _run_check(
    paths: tuple[Path, ...],
    fix: bool,
    unsafe_fixes: bool | None,
    fix_only: bool,
    diff: bool,
    fixable: str | None,
    unfixable: str | None,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    scope: str | None,
    exit_zero: bool,
    exit_non_zero_on_fix: bool,
    output_format: str,
    output_file: Path | None,
    show_fixes: bool,
    statistics: bool,
    show_files: bool,
    show_settings: bool,
    config_args: tuple[str, ...],
    isolated: bool,
    stdin_filename: str | None,
    force_exclude: bool,
    quiet: bool,
    jobs: int | None,
    no_cache: bool,
    cache_dir: Path | None,
    runtime_report: Path | None,
    add_noqa: bool,
) -> int:
    from stridelint.config import settings_toml
    from stridelint.discovery import DiscoveryError, discover, is_excluded
    from stridelint.engine import FixMode, check_bytes, default_cache, run_files
    from stridelint.output import STATISTICS_FORMATS

    reading_stdin = _reads_stdin(paths, stdin_filename)
    if statistics and output_format not in STATISTICS_FORMATS:
        _fail(f"--statistics prints a table or JSON; use --output-format "
              f"{', '.join(STATISTICS_FORMATS)}, not {output_format}")
    config = _settings(config_args, isolated, select=select, extend_select=extend_select,
                       ignore=ignore, fixable=fixable, unfixable=unfixable, scope=scope,
                       unsafe_fixes=unsafe_fixes)
    fix = fix or fix_only
    fixing_stdin = reading_stdin and fix and not diff
    printout = _Printout()
    where = {"output_file": output_file, "report_to_stderr": fixing_stdin, "color": False}
    if show_settings:
        printout.report(settings_toml(config))
        return _print(printout, **where)
    mode = FixMode(apply=fix or diff, unsafe=config.unsafe_fixes, write=not diff)

    if reading_stdin:
        display = stdin_filename or "-"
        path = Path(stdin_filename) if stdin_filename else None
        if show_files:
            printout.report(display + "\n")
            return _print(printout, **where)
        data = sys.stdin.buffer.read()
        if path is not None and force_exclude and is_excluded(path, config):
            if fixing_stdin:
                printout.chunks.append(("source", data))
            return _print(printout, **where)
        report, source = check_bytes(data, display, config, path, FixMode(mode.apply, mode.unsafe, False))
        reports = [report]
        if fixing_stdin and source is not None:
            printout.chunks.append(("source", source.encode(report.source)))
    else:
        try:
            files = discover(list(paths) or [Path(".")], config, force_exclude=force_exclude)
        except DiscoveryError as error:
            _fail(str(error))
        if show_files:
            printout.report("".join(f"{file}\n" for file in files))
            return _print(printout, **where)
        if not files and (not paths or any(path.is_dir() for path in paths)):
            # Exit 0, as Ruff: nothing to lint is not a finding, and CI jobs over optional
            # directories must not break; a path that does not exist is an error (exit 2).
            click.echo(NO_FILES_WARNING, err=True)
            if not add_noqa:
                return _print(_no_files_printout(output_format, statistics, fix_only), **where)
        if add_noqa:
            return _add_noqa(files, config)
        cache = None if no_cache else default_cache(config, cache_dir)
        from stridelint.output.progress import progress

        with progress(len(files), quiet=quiet) as tick:
            reports = run_files(files, config, mode, jobs=jobs or os.cpu_count() or 1, cache=cache,
                                on_checked=tick)

    misses = ""
    if runtime_report is not None:
        from stridelint.runtime.confirm import RuntimeReportError, confirm, load_events

        try:
            misses = confirm(reports, load_events(runtime_report)).render()
        except RuntimeReportError as error:
            _fail(str(error))
    where["color"] = (output_file is None and not fixing_stdin and sys.stdout.isatty()
                      and "NO_COLOR" not in os.environ)
    _describe(
        printout,
        reports,
        output_format=output_format,
        show_fixes=show_fixes,
        unsafe_fixes=config.unsafe_fixes,
        fixing=fix and not diff,
        fix_only=fix_only,
        diff=diff,
        statistics=statistics,
        quiet=quiet,
        color=where["color"],
        exit_zero=exit_zero,
        exit_non_zero_on_fix=exit_non_zero_on_fix,
    )
    printout.report(misses)
    return _print(printout, **where)


def _no_files_printout(output_format: str, statistics: bool, fix_only: bool) -> _Printout:
    """Nothing to check: tools still get a valid, empty document; people got the warning."""
    from stridelint.output import RenderOptions, render, render_statistics
    from stridelint.rules import RULES_BY_CODE as rules

    printout = _Printout()
    if fix_only:
        return printout
    if statistics:
        printout.report(render_statistics([], rules, RenderOptions(), output_format))
    elif output_format not in ("concise", "full"):
        printout.report(render(output_format, [], rules, RenderOptions()))
    return printout


def _describe(printout: _Printout, reports, *, output_format, show_fixes, unsafe_fixes, fixing,
              fix_only, diff, statistics, quiet, color, exit_zero, exit_non_zero_on_fix) -> None:
    """Fill `printout` with the errors, the report and the summary, and settle the status."""
    from stridelint.output import (
        RenderOptions,
        render,
        render_fix_only_summary,
        render_statistics,
        render_summary,
    )
    from stridelint.rules import RULES_BY_CODE as rules  # cheap: rule modules import lazily

    options = RenderOptions(show_fixes=show_fixes, color=color, unsafe_fixes=unsafe_fixes)
    errors = False
    for report in reports:
        problems = ([report.error] if report.error is not None else []) + report.internal_errors
        for message in problems:
            errors = True
            printout.stderr(f"stridelint: error: {report.path}: {message}\n")

    fixed = sum(r.fixed_count for r in reports)
    if diff:
        patch = "".join(_unified_diff(r) for r in reports if r.original_source is not None)
        printout.report(patch)
        if not quiet:
            word = "fix" if fixed == 1 else "fixes"
            printout.stderr(f"Would apply {fixed} {word}.\n" if fixed else "No fixes to apply.\n")
        if errors:
            printout.status = EXIT_ERROR
        else:
            printout.status = EXIT_FINDINGS if patch and not exit_zero else EXIT_CLEAN
        return

    human = output_format in ("concise", "full")
    if fix_only:
        if human and not quiet:
            printout.report(render_fix_only_summary(reports))
    else:
        if statistics:
            printout.report(render_statistics(reports, rules, options, output_format))
        else:
            printout.report(render(output_format, reports, rules, options))
        if human and not quiet:
            printout.report(render_summary(reports, options, fixing=fixing))

    remaining = sum(len(r.findings) for r in reports if r.error is None)
    if errors:
        printout.status = EXIT_ERROR
    elif exit_non_zero_on_fix and fixed:
        printout.status = EXIT_FINDINGS
    elif remaining and not exit_zero and not fix_only:
        printout.status = EXIT_FINDINGS
    else:
        printout.status = EXIT_CLEAN


def _unified_diff(report) -> str:
    lines = difflib.unified_diff(
        report.original_source.splitlines(keepends=True),
        report.source.splitlines(keepends=True),
        fromfile=f"a/{report.path}",
        tofile=f"b/{report.path}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)


@main.command(short_help="Print a rule's page, or list the rules.")
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
def rule(code: str | None, show_all: bool) -> None:
    """Print the page of rule CODE (SL101, say), or list every rule with --all."""
    sys.exit(_guarded(_rule, code, show_all))


def _rule(code: str | None, show_all: bool) -> int:
    from stridelint.rules import ALL_RULES, RULES_BY_CODE

    if show_all or code is None:
        width = max(len(r.name) for r in ALL_RULES)
        click.echo(f"{'code':<6} {'name':<{width}} {'fix':<9} summary")
        for item in ALL_RULES:
            click.echo(f"{item.code:<6} {item.name:<{width}} {item.fix_availability:<9} {item.summary}")
        return EXIT_CLEAN
    item = RULES_BY_CODE.get(code.upper())
    if item is None:
        known = ", ".join(sorted(RULES_BY_CODE))
        _fail(f"unknown rule code {code!r} (known: {known})")
    from stridelint.rules.pages import render_page

    click.echo(render_page(item), nl=False)
    return EXIT_CLEAN


@main.command(short_help="Print the fix helpers as a module, for `helper-module`.")
def helpers() -> None:
    """Print the narrow-and-rescale helpers as a module of their own.

    With `helper-module = "pkg._broadcast"` in the settings, the fixes import
    `narrow_broadcast`, `repeats`, `repeated_sum` and `count_true` from that module
    instead of pasting them into each fixed module. Save this output there once, e.g.
    `stridelint helpers > pkg/_broadcast.py`.
    """
    sys.exit(_guarded(_helpers))


def _helpers() -> int:
    from stridelint.transforms.helpers import helper_module_source

    click.echo(helper_module_source(), nl=False)
    return EXIT_CLEAN


@main.command(short_help="Run the language server (LSP over stdio) for editors.")
def server() -> None:
    """Serve diagnostics, quick fixes and "fix all" to an editor over standard input and
    output (the Language Server Protocol). Needs the `lsp` extra (pygls)."""
    from stridelint.lsp import main as serve

    sys.exit(_guarded(serve))


@main.command(short_help="Lint, fix and (with torch) measure the bundled reference hook.")
@click.option("--size", type=click.IntRange(min=1), default=None, metavar="N",
              help="Logical elements of the broadcast mask (default: 64 Mi on CPU, 2 Gi on CUDA).")
def demo(size: int | None) -> None:
    """Lint, fix and measure the bundled reference kernel's launch-metadata hook.

    Without torch it shows the finding, its evidence and the fix; with torch (and triton) it
    also runs both hooks on a large broadcast mask and checks the reference kernel.
    """
    from stridelint.demo import run

    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    echo = lambda text: click.echo(text, nl=False, color=color)  # noqa: E731
    sys.exit(_guarded(run, echo, size=size, color=color))
