"""The `stridelint` command: click options in, engine calls out, exit codes as Ruff's.

Exit status: 0 nothing left to report; 1 findings remain (or `--diff` has a diff, or
`--exit-non-zero-on-fix` fixed something); 2 bad usage, bad configuration, or a file that
could not be read, decoded, analysed or written.
"""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path

import click

from stridelint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


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
    options = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option("--fix/--no-fix", default=False, help="Apply safe fixes."),
        click.option("--unsafe-fixes", is_flag=True, help="Also apply (and count) unsafe fixes."),
        click.option("--diff", is_flag=True, help="Print the fixes as a diff; write nothing."),
        click.option("--select", help="Comma-separated rule codes or prefixes (replaces the config)."),
        click.option("--extend-select", help="Rule codes or prefixes to add to the selection."),
        click.option("--ignore", help="Rule codes or prefixes to ignore."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain."),
        click.option("--exit-non-zero-on-fix", is_flag=True,
                     help="Exit 1 when something was fixed, even if nothing remains."),
        click.option("--output-format", type=click.Choice(_formats()), default="concise",
                     show_default=True, help="How findings are printed."),
        click.option("--show-fixes", is_flag=True, help="With `full`: print each fix as a diff."),
        click.option("--config", "config_file", type=click.Path(path_type=Path),
                     help="Use this configuration file."),
        click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
        click.option("--statistics", is_flag=True, help="Print counts per rule instead of findings."),
        click.option("--stdin-filename", help="The file name to report for `-` (standard input)."),
        click.option("--force-exclude", is_flag=True,
                     help="Apply exclusions to paths named on the command line too."),
        click.option("-q", "--quiet", is_flag=True, help="Print findings and nothing else."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                     help="Worker processes (default: the number of CPUs)."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache."),
        click.option("--cache-dir", type=click.Path(path_type=Path),
                     help="Where the result cache lives (default: .stridelint_cache next to the config)."),
        click.option("--add-noqa", is_flag=True,
                     help="Add a `# noqa: CODE` for every current finding (keeps other comments)."),
        click.option("--runtime-report", type=click.Path(path_type=Path),
                     help="A `pytest --stridelint-runtime-json` report: mark confirmed findings "
                          "and list runtime events no rule predicted."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _formats() -> tuple[str, ...]:
    from stridelint.output import FORMATS

    return FORMATS


@main.command()
@_check_options
def check(**options) -> None:
    """Check PATHS (default: the current directory) for broadcast materializations."""
    sys.exit(_guarded(_run_check, **options))


@main.command()
@_check_options
def fix(**options) -> None:
    """Check PATHS and apply fixes (`check --fix`)."""
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


def _guarded(command, **options) -> int:
    """A bug must still end in one line and exit 2; STRIDELINT_DEBUG=1 shows the traceback."""
    try:
        return command(**options)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as error:
        if os.environ.get("STRIDELINT_DEBUG"):
            raise
        click.echo(
            f"stridelint: internal error: {type(error).__name__}: {error} "
            "(set STRIDELINT_DEBUG=1 for the traceback)",
            err=True,
        )
        return EXIT_ERROR


def _run_check(
    paths: tuple[Path, ...],
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    exit_zero: bool,
    exit_non_zero_on_fix: bool,
    output_format: str,
    show_fixes: bool,
    config_file: Path | None,
    isolated: bool,
    statistics: bool,
    stdin_filename: str | None,
    force_exclude: bool,
    quiet: bool,
    jobs: int | None,
    no_cache: bool,
    cache_dir: Path | None,
    runtime_report: Path | None,
    add_noqa: bool,
) -> int:
    from stridelint.config import ConfigError, load_config
    from stridelint.discovery import DiscoveryError, discover, is_excluded
    from stridelint.engine import FixMode, check_bytes, default_cache, run_files

    try:
        config = load_config(Path.cwd(), explicit=config_file, isolated=isolated)
        config = config.with_overrides(
            select=_selectors(select) or None,
            extend_select=_selectors(extend_select),
            ignore=_selectors(ignore),
        )
    except ConfigError as error:
        _fail(str(error))
    mode = FixMode(apply=fix or diff, unsafe=unsafe_fixes, write=not diff)

    reading_stdin = paths == (Path("-"),)
    if reading_stdin:
        data = sys.stdin.buffer.read()
        display = stdin_filename or "-"
        path = Path(stdin_filename) if stdin_filename else None
        if path is not None and force_exclude and is_excluded(path, config):
            if fix and not diff:
                sys.stdout.buffer.write(data)
            return EXIT_CLEAN
        report, source = check_bytes(data, display, config, path, FixMode(mode.apply, mode.unsafe, False))
        reports = [report]
        if fix and not diff and source is not None:
            sys.stdout.buffer.write(source.encode(report.source))
    else:
        try:
            files = discover(list(paths) or [Path(".")], config, force_exclude=force_exclude)
        except DiscoveryError as error:
            _fail(str(error))
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
    code = _report(
        reports,
        output_format=output_format,
        show_fixes=show_fixes,
        unsafe_fixes=unsafe_fixes,
        fixing=fix and not diff,
        diff=diff,
        statistics=statistics,
        quiet=quiet,
        to_stderr=reading_stdin and fix and not diff,
        exit_zero=exit_zero,
        exit_non_zero_on_fix=exit_non_zero_on_fix,
    )
    if misses:
        click.echo(misses, nl=False, err=reading_stdin and fix and not diff)
    return code


def _report(reports, *, output_format, show_fixes, unsafe_fixes, fixing, diff, statistics,
            quiet, to_stderr, exit_zero, exit_non_zero_on_fix) -> int:
    from stridelint.output import RenderOptions, render, render_statistics, render_summary
    from stridelint.rules import RULES_BY_CODE as rules  # cheap: rule modules import lazily

    color = not to_stderr and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    options = RenderOptions(show_fixes=show_fixes, color=color, unsafe_fixes=unsafe_fixes)
    errors = False
    for report in reports:
        if report.error is not None:
            errors = True
            click.echo(f"stridelint: error: {report.path}: {report.error}", err=True)
        for message in report.internal_errors:
            errors = True
            click.echo(f"stridelint: error: {report.path}: {message}", err=True)

    fixed = sum(r.fixed_count for r in reports)
    if diff:
        patch = "".join(_unified_diff(r) for r in reports if r.original_source is not None)
        click.echo(patch, nl=False)
        if not quiet:
            word = "fix" if fixed == 1 else "fixes"
            click.echo(f"Would apply {fixed} {word}." if fixed else "No fixes to apply.", err=True)
        if errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if patch and not exit_zero else EXIT_CLEAN

    if statistics:
        text = render_statistics(reports, rules, options)
    else:
        text = render(output_format, reports, rules, options)
    click.echo(text, nl=False, err=to_stderr, color=color)
    human = output_format in ("concise", "full") or statistics
    if human and not quiet:
        summary = render_summary(reports, options, fixing=fixing)
        if summary:
            click.echo(summary, nl=False, err=to_stderr, color=color)

    remaining = sum(len(r.findings) for r in reports if r.error is None)
    if errors:
        return EXIT_ERROR
    if exit_non_zero_on_fix and fixed:
        return EXIT_FINDINGS
    if remaining and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _unified_diff(report) -> str:
    lines = difflib.unified_diff(
        report.original_source.splitlines(keepends=True),
        report.source.splitlines(keepends=True),
        fromfile=f"a/{report.path}",
        tofile=f"b/{report.path}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
def rule(code: str | None, show_all: bool) -> None:
    """Print the page of rule CODE (e.g. SL101), or list every rule with --all."""
    from stridelint.rules import ALL_RULES, RULES_BY_CODE

    if show_all or code is None:
        width = max(len(r.name) for r in ALL_RULES)
        click.echo(f"{'code':<6} {'name':<{width}} {'fix':<9} summary")
        for item in ALL_RULES:
            click.echo(f"{item.code:<6} {item.name:<{width}} {item.fix_availability:<9} {item.summary}")
        return
    item = RULES_BY_CODE.get(code.upper())
    if item is None:
        known = ", ".join(sorted(RULES_BY_CODE))
        _fail(f"unknown rule code {code!r} (known: {known})")
    from stridelint.rules.pages import render_page

    click.echo(render_page(item), nl=False)


@main.command()
@click.option("--size", type=click.IntRange(min=1), default=None,
              help="Logical elements of the broadcast mask (default: 64 Mi on CPU, 2 Gi on CUDA).")
def demo(size: int | None) -> None:
    """Lint, fix and measure the bundled reference kernel's launch-metadata hook."""
    from stridelint.demo import run

    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    sys.exit(run(lambda text: click.echo(text, nl=False, color=color), size=size, color=color))
