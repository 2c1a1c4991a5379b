"""Find, read and validate stridelint's settings into one frozen `Config`.

Settings live in `[tool.stridelint]` of a `pyproject.toml`, or at the top level of a
`stridelint.toml` / `.stridelint.toml`; `--config KEY=VALUE` overrides one of them. Every
mistake in them becomes a `ConfigError` whose text is one line naming the file (or flag) and
the key, so the CLI can print it as is.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

import pathspec

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg-info",
    "build",
    "dist",
    "__pycache__",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".stridelint_cache",
    "site-packages",
    "__pypackages__",
    ".ipynb_checkpoints",
    # Tests, examples and their checkers build inputs and reference results: no hot path, and
    # on real libraries the findings there were noise (docs/benchmarks.md, precision).
    "tests",
    "testing",
    "examples",
    "test_*.py",
    "*_test.py",
    "conftest.py",
)

SCOPES: tuple[str, ...] = ("wrappers", "all")

# Ruff's and Black's default, and the range Ruff accepts.
DEFAULT_LINE_LENGTH = 88
MAX_LINE_LENGTH = 320

# In search order: the dedicated files win over pyproject.toml within one directory.
CONFIG_FILENAMES: tuple[str, ...] = ("stridelint.toml", ".stridelint.toml", "pyproject.toml")

# "SL" selects every rule, "SL1" a family, "SL101" one rule.
_SELECTOR = re.compile(r"SL[0-9]{0,3}")


class ConfigError(Exception):
    """A configuration mistake; `str()` is one line naming the file (or flag) and the key."""


@functools.cache
def gitignore_spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    """Compile gitignore-style patterns once per distinct tuple (they are matched per file)."""
    return pathspec.GitIgnoreSpec.from_lines(patterns)


@dataclass(frozen=True)
class Config:
    """Every setting that decides which files are linted and which findings are reported."""

    root: Path
    source: Path | None
    select: tuple[str, ...] = ("SL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    scope: str = "wrappers"
    broadcast_hints: tuple[str, ...] = ()
    wrapper_decorators: tuple[str, ...] = ()
    fixable: tuple[str, ...] = ("SL",)
    unfixable: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    low_severity: bool = False  # also report findings that cost little or are usually needed
    # How the fixes write code: the longest line they may write (stridelint's `line-length`,
    # else the project's Ruff or Black setting), and the module holding the narrow-and-rescale
    # helpers that the fixes import instead of pasting them into each fixed module.
    line_length: int = DEFAULT_LINE_LENGTH
    helper_module: str | None = None

    def with_overrides(
        self,
        *,
        select: Iterable[str] | None = None,
        extend_select: Iterable[str] = (),
        ignore: Iterable[str] = (),
        fixable: Iterable[str] | None = None,
        unfixable: Iterable[str] = (),
        scope: str | None = None,
        unsafe_fixes: bool | None = None,
    ) -> Config:
        """Apply the CLI's flags on top of the file's settings.

        `--select` replaces the file's `select` and drops its `extend-select` (which extended
        the selection being replaced); `--extend-select` and `--ignore` add to what is there.
        `--fixable` replaces `fixable`, `--unfixable` adds to `unfixable`, and `--scope` and
        `--unsafe-fixes`/`--no-unsafe-fixes` replace their settings.
        """
        extend_select = _checked_cli_selectors("--extend-select", extend_select)
        ignore = _checked_cli_selectors("--ignore", ignore)
        unfixable = _checked_cli_selectors("--unfixable", unfixable)
        if select is None:
            base_select, base_extend = self.select, self.extend_select
        else:
            base_select, base_extend = _checked_cli_selectors("--select", select), ()
        if fixable is not None:
            fixable = _checked_cli_selectors("--fixable", fixable)
        return dataclasses.replace(
            self,
            select=base_select,
            extend_select=base_extend + extend_select,
            ignore=self.ignore + ignore,
            fixable=self.fixable if fixable is None else fixable,
            unfixable=self.unfixable + unfixable,
            scope=self.scope if scope is None else _scope(scope, "--scope"),
            unsafe_fixes=self.unsafe_fixes if unsafe_fixes is None else unsafe_fixes,
        )

    def with_settings(self, table: dict[str, Any], label: str) -> Config:
        """The settings of `table` (keys as in the file) replacing this config's: what
        `--config KEY=VALUE` does. `label` prefixes every error message."""
        return dataclasses.replace(self, **_parse_settings(table, label))

    def is_enabled(self, code: str, path: Path | None = None) -> bool:
        """Ruff's rule: the longest selector matching `code` decides; on a tie, ignoring wins."""
        longest_select = _longest_prefix(code, self.select + self.extend_select)
        if longest_select is None:
            return False
        ignores = self.ignore
        if path is not None:
            ignores += self.per_file_ignored(path)
        longest_ignore = _longest_prefix(code, ignores)
        return longest_ignore is None or longest_select > longest_ignore

    def is_fixable(self, code: str) -> bool:
        """Whether `--fix` may apply the fixes of rule `code`: `fixable` against `unfixable`,
        decided like `select` against `ignore`."""
        longest_fixable = _longest_prefix(code, self.fixable)
        if longest_fixable is None:
            return False
        longest_unfixable = _longest_prefix(code, self.unfixable)
        return longest_unfixable is None or longest_fixable > longest_unfixable

    def per_file_ignored(self, path: Path) -> tuple[str, ...]:
        """The selectors that `per-file-ignores` switches off for `path` (asked per rule and
        file: without patterns, no path to resolve)."""
        if not self.per_file_ignores:
            return ()
        relative = self.relative_path(path)
        return tuple(
            code
            for glob, codes in self.per_file_ignores
            if gitignore_spec((glob,)).match_file(relative)
            for code in codes
        )

    def relative_path(self, path: Path) -> str:
        """`path` as exclude and per-file-ignores patterns see it: relative to `root`, in
        POSIX form; a path outside `root` is used as given."""
        try:
            relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(self.root))
        except ValueError:
            return Path(path).as_posix()
        return relative.as_posix()

    def fingerprint(self) -> str:
        """Hash of the settings, so cached results are reused only under the same settings.

        `root` and `source` are left out: moving a checkout must not invalidate its cache.
        """
        settings = {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if field.name not in ("root", "source")
        }
        canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


def load_config(start: Path, *, explicit: Path | None = None, isolated: bool = False) -> Config:
    """Settings for a run started in directory `start`.

    `isolated` ignores every file; `explicit` (`--config FILE`) names the file; otherwise the
    nearest configuration in `start` or its parents is used, or the defaults.
    """
    start = Path(os.path.abspath(start))
    if isolated:
        return Config(root=start, source=None)
    config = _load_stridelint_config(start, explicit)
    if config.source is not None and _sets_line_length(config.source):
        return config
    directory = start if explicit is None else Path(os.path.abspath(explicit.parent))
    return dataclasses.replace(config, line_length=formatter_line_length(directory))


def _load_stridelint_config(start: Path, explicit: Path | None) -> Config:
    if explicit is not None:
        document = _read_toml(explicit)
        if explicit.name == "pyproject.toml":
            table = _stridelint_table(document, explicit)
            return _config_from_table(table or {}, explicit, in_pyproject=True)
        return _config_from_table(document, explicit, in_pyproject=False)
    for directory in (start, *start.parents):
        for filename in CONFIG_FILENAMES:
            candidate = directory / filename
            if not candidate.is_file():
                continue
            document = _read_toml(candidate)
            if filename != "pyproject.toml":
                return _config_from_table(document, candidate, in_pyproject=False)
            table = _stridelint_table(document, candidate)
            if table is not None:
                return _config_from_table(table, candidate, in_pyproject=True)
    return Config(root=start, source=None)


def _sets_line_length(source: Path) -> bool:
    """Whether stridelint's own settings file sets `line-length` (it was read already)."""
    document = _read_toml(source)
    if source.name == "pyproject.toml":
        document = _stridelint_table(document, source) or {}
    return "line-length" in document


def formatter_line_length(start: Path) -> int:
    """The line length the project's formatter keeps, found the way Ruff finds its settings:
    the nearest `.ruff.toml`, `ruff.toml` or pyproject.toml with `[tool.ruff]` in `start` or
    its parents (in that order within a directory), its `line-length`, else 88; a
    pyproject.toml whose `[tool.ruff]` does not set it may set Black's `[tool.black]`
    `line-length`. Files of other tools that cannot be read or hold no valid length are
    passed over: they are those tools' to report."""
    for directory in (start, *start.parents):
        for filename in (".ruff.toml", "ruff.toml"):
            document = _other_tool_file(directory / filename)
            if document is not None:
                return _length_or_default(document.get("line-length"))
        document = _other_tool_file(directory / "pyproject.toml")
        tool = document.get("tool") if document is not None else None
        if not isinstance(tool, dict):
            continue
        ruff, black = tool.get("ruff"), tool.get("black")
        for table in (ruff, black):
            if isinstance(table, dict) and _valid_length(table.get("line-length")):
                return table["line-length"]
        if isinstance(ruff, dict) or isinstance(black, dict):
            return DEFAULT_LINE_LENGTH
    return DEFAULT_LINE_LENGTH


def _other_tool_file(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as file:
            return tomllib.load(file)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _valid_length(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_LINE_LENGTH


def _length_or_default(value: Any) -> int:
    return value if _valid_length(value) else DEFAULT_LINE_LENGTH


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as file:
            return tomllib.load(file)
    except OSError as error:
        raise ConfigError(f"{_display(path)}: cannot read: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise ConfigError(f"{_display(path)}: not valid UTF-8: {error.reason}") from error
    except tomllib.TOMLDecodeError as error:
        one_line = " ".join(str(error).split())
        raise ConfigError(f"{_display(path)}: invalid TOML: {one_line}") from error


def _stridelint_table(document: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """`[tool.stridelint]` of a pyproject.toml, or None when the project does not use it."""
    if "stridelint" in document:  # `[stridelint]`: meant for us, but pyproject.toml needs `tool.`
        raise ConfigError(
            f"{_display(path)}: [stridelint]: in pyproject.toml the settings go in a "
            "[tool.stridelint] table (rename [stridelint] to [tool.stridelint])"
        )
    tool = document.get("tool", {})
    if not isinstance(tool, dict) or "stridelint" not in tool:
        return None
    table = tool["stridelint"]
    if not isinstance(table, dict):
        raise ConfigError(
            f"{_display(path)}: tool.stridelint: expected a table, got {_toml_type(table)}"
        )
    return table


def _config_from_table(table: dict[str, Any], path: Path, *, in_pyproject: bool) -> Config:
    if not in_pyproject:
        _reject_pyproject_layout(table, path)
    prefix = f"{_display(path)}: " + ("[tool.stridelint] " if in_pyproject else "")
    settings = _parse_settings(table, prefix)
    return Config(root=Path(os.path.abspath(path.parent)), source=path, **settings)


def _reject_pyproject_layout(document: dict[str, Any], path: Path) -> None:
    """A `[tool.stridelint]` or `[stridelint]` table in a stridelint.toml: the user copied
    pyproject.toml's layout, where this file wants the keys at the top level."""
    tool = document.get("tool")
    header = "tool.stridelint" if isinstance(tool, dict) and "stridelint" in tool else None
    if header is None and isinstance(document.get("stridelint"), dict):
        header = "stridelint"
    if header is not None:
        raise ConfigError(
            f"{_display(path)}: [{header}]: in {path.name} the settings go at the top level; "
            f"remove the [{header}] header ([{header}.per-file-ignores] becomes "
            "[per-file-ignores]); only pyproject.toml uses [tool.stridelint]"
        )


def _parse_settings(table: dict[str, Any], prefix: str) -> dict[str, Any]:
    """Each key of a settings table checked and converted into a `Config` field."""
    settings: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _PARSERS:
            raise ConfigError(f"{prefix}{key}: unknown key{_did_you_mean(key)}")
        parse = _PARSERS[key]
        settings[key.replace("-", "_")] = parse(value, f"{prefix}{key}")
    return settings


def split_config_arguments(arguments: Iterable[str]) -> tuple[Path | None, list[dict[str, Any]]]:
    """`--config` values, as Ruff reads them: an existing file, or a name without `=`, is the
    configuration file (one at most); anything else is a `KEY = VALUE` TOML override."""
    files: list[str] = []
    overrides: list[dict[str, Any]] = []
    for argument in arguments:
        if os.path.isfile(argument) or "=" not in argument:
            files.append(argument)
        else:
            overrides.append(parse_override(argument))
    if len(files) > 1:
        raise ConfigError(f"--config: only one configuration file can be used, got {files}")
    return (Path(files[0]) if files else None), overrides


def parse_override(argument: str) -> dict[str, Any]:
    """One `--config KEY=VALUE`: the value is TOML (`scope='all'`, `select=["SL1"]`)."""
    try:
        table = tomllib.loads(argument)
    except tomllib.TOMLDecodeError as error:
        one_line = " ".join(str(error).split())
        raise ConfigError(
            f"--config {argument!r}: not a file, and not a TOML `KEY = VALUE` pair: {one_line} "
            "(quote string values: scope = 'all')"
        ) from error
    if len(table) != 1:
        raise ConfigError(f"--config {argument!r}: give one `KEY = VALUE` pair per --config")
    return table


def settings_toml(config: Config) -> str:
    """The settings in effect as a stridelint.toml document (for `--show-settings`)."""
    lines = [
        f"# settings file: {config.source if config.source is not None else 'none (defaults)'}",
        f"# root: {config.root}",
    ]
    for key in _PARSERS:
        if key == "per-file-ignores":
            continue
        if key == "helper-module" and config.helper_module is None:
            lines.append("# helper-module: not set (the fixes paste their helpers)")
            continue
        lines.append(f"{key} = {_toml_value(getattr(config, key.replace('-', '_')))}")
    lines += ["", "[per-file-ignores]"]
    lines += [
        f"{_toml_value(glob)} = {_toml_value(codes)}" for glob, codes in config.per_file_ignores
    ]
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    return "[" + ", ".join(_toml_value(item) for item in value) + "]"


def _did_you_mean(key: str) -> str:
    close = difflib.get_close_matches(key, _PARSERS, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _strings(value: Any, label: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{label}: expected an array of strings, got {_toml_type(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigError(f"{label}[{index}]: expected a string, got {_toml_type(item)}")
    return tuple(value)


def _selectors(value: Any, label: str) -> tuple[str, ...]:
    selectors = _strings(value, label)
    for index, selector in enumerate(selectors):
        if not _SELECTOR.fullmatch(selector):
            raise ConfigError(f"{label}[{index}]: {_bad_selector(selector)}")
    return selectors


def _bad_selector(selector: str) -> str:
    return (
        f"invalid rule selector {selector!r} "
        "(expected 'SL' and up to three digits, e.g. 'SL', 'SL1' or 'SL101')"
    )


def _patterns(value: Any, label: str) -> tuple[str, ...]:
    patterns = _strings(value, label)
    for index, pattern in enumerate(patterns):
        _check_pattern(pattern, f"{label}[{index}]")
    return patterns


def _check_pattern(pattern: str, label: str) -> None:
    try:
        gitignore_spec((pattern,))
    except ValueError as error:  # pathspec rejects a few patterns git cannot parse either
        raise ConfigError(f"{label}: invalid pattern {pattern!r}: {error}") from error


def _identifiers(value: Any, label: str) -> tuple[str, ...]:
    names = _strings(value, label)
    for index, name in enumerate(names):
        if not name.isidentifier():
            raise ConfigError(f"{label}[{index}]: {name!r} is not a Python identifier")
    return names


def _dotted_names(value: Any, label: str) -> tuple[str, ...]:
    names = _strings(value, label)
    for index, name in enumerate(names):
        if not all(part.isidentifier() for part in name.split(".")):
            raise ConfigError(
                f"{label}[{index}]: {name!r} is not a dotted name such as 'mylib.kernel_wrapper'"
            )
    return names


def _boolean(value: Any, label: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{label}: expected true or false, got {_toml_type(value)}")
    return value


def _line_length(value: Any, label: str) -> int:
    if not _valid_length(value):
        shown = _toml_type(value) if not isinstance(value, int) else str(value)
        raise ConfigError(f"{label}: expected an integer from 1 to {MAX_LINE_LENGTH}, got {shown}")
    return value


def _module_name(value: Any, label: str) -> str:
    if not isinstance(value, str) or not all(p.isidentifier() for p in value.split(".")):
        shown = repr(value) if isinstance(value, str) else _toml_type(value)
        raise ConfigError(
            f"{label}: expected a dotted module name such as 'mypkg._broadcast', got {shown}"
        )
    return value


def _scope(value: Any, label: str) -> str:
    if value not in SCOPES:
        expected = ", ".join(repr(scope) for scope in SCOPES)
        raise ConfigError(f"{label}: expected one of {expected}, got {value!r}")
    return value


def _per_file_ignores(value: Any, label: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(
            f"{label}: expected a table of glob = [rule selectors], got {_toml_type(value)}"
        )
    entries = []
    for glob, codes in value.items():
        glob_label = f"{label}.{json.dumps(glob)}"
        if glob.startswith("!"):
            raise ConfigError(f"{glob_label}: negated globs are not supported")
        _check_pattern(glob, glob_label)
        entries.append((glob, _selectors(codes, glob_label)))
    return tuple(entries)


_PARSERS: dict[str, Callable[[Any, str], Any]] = {
    "select": _selectors,
    "extend-select": _selectors,
    "ignore": _selectors,
    "exclude": _patterns,
    "extend-exclude": _patterns,
    "per-file-ignores": _per_file_ignores,
    "scope": _scope,
    "broadcast-hints": _identifiers,
    "wrapper-decorators": _dotted_names,
    "fixable": _selectors,
    "unfixable": _selectors,
    "unsafe-fixes": _boolean,
    "low-severity": _boolean,
    "line-length": _line_length,
    "helper-module": _module_name,
}


def _checked_cli_selectors(flag: str, selectors: Iterable[str]) -> tuple[str, ...]:
    selectors = tuple(selectors)
    for selector in selectors:
        if not _SELECTOR.fullmatch(selector):
            raise ConfigError(f"{flag}: {_bad_selector(selector)}")
    return selectors


def _longest_prefix(code: str, selectors: tuple[str, ...]) -> int | None:
    lengths = [len(selector) for selector in selectors if code.startswith(selector)]
    return max(lengths, default=None)


_TOML_TYPE_NAMES = {
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    list: "an array",
    dict: "a table",
}


def _toml_type(value: Any) -> str:
    """The TOML name of a decoded value's type; the only other TOML values are dates/times."""
    return _TOML_TYPE_NAMES.get(type(value), "a date or time")


def _display(path: Path) -> str:
    """The path as the user most likely typed it: relative to the working directory if inside."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return str(absolute)
