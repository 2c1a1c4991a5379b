"""Turn the paths on the command line into the Python files to lint.

Directories are walked with `os.scandir` (its cached entry types spare a stat per file) and
excluded directories are pruned before they are listed, which is what keeps large trees
(virtual environments, build outputs, ignored data) cheap. Exclusion follows Ruff: the
`exclude` settings and `.gitignore` files decide inside a walked directory, while a file
named on the command line is always linted unless `force_exclude` asks otherwise.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pathspec
from pathspec.util import normalize_file

from stridelint.config import Config, gitignore_spec

PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")  # notebooks: see stridelint.notebook


class _Matcher:
    """A GitIgnoreSpec behind a one-regex pre-check.

    Nearly every path in a walk matches none of the patterns, and pathspec tries them one by
    one; a single alternation of all of them answers "none" in one search.
    """

    __slots__ = ("spec", "_any_pattern")

    def __init__(self, spec: pathspec.GitIgnoreSpec) -> None:
        self.spec = spec
        # Group names would clash in one alternation; the groups only mark directory matches.
        sources = [
            re.sub(r"\(\?P<\w+>", "(?:", pattern.regex.pattern)
            for pattern in spec.patterns
            if pattern.include is not None
        ]
        self._any_pattern = re.compile("|".join(sources)) if sources else None

    def decision(self, path: str) -> bool | None:
        """True if `path` is excluded, False if a negation re-includes it, None if no pattern
        matches. `path` must already be normalized as pathspec does (POSIX, relative)."""
        if self._any_pattern is None or self._any_pattern.search(path) is None:
            return None
        return self.spec.check_file(path).include


# An ignore file, and the directory being listed relative to the directory that file's
# patterns are anchored in ("" for that directory itself, else ending in "/").
_IgnoreLayer = tuple[_Matcher, str]


class DiscoveryError(Exception):
    """A path on the command line cannot be linted; `str()` is one line."""


def discover(paths: Sequence[Path], config: Config, *, force_exclude: bool = False) -> list[Path]:
    """The files to lint under `paths`, sorted and without duplicates, in the form given."""
    working_directory = os.getcwd()
    found: dict[str, Path] = {}
    for path in map(Path, paths):
        if not os.path.exists(path):
            raise DiscoveryError(f"no such file or directory: {path}")
        if force_exclude and is_excluded(path, config):
            continue
        files = _walk(path, config) if path.is_dir() else [path]
        for file in files:
            found.setdefault(os.path.normpath(os.path.join(working_directory, file)), file)
    return sorted(found.values())


def is_excluded(path: Path, config: Config) -> bool:
    """Whether `exclude`/`extend-exclude` cover `path` or one of its directories under root."""
    relative = config.relative_path(path)
    if os.path.isdir(path):
        relative += "/"
    return bool(_exclude_spec(config).match_file(relative))


def _exclude_spec(config: Config) -> pathspec.GitIgnoreSpec:
    return gitignore_spec(config.exclude + config.extend_exclude)


def _walk(top: Path, config: Config) -> Iterator[Path]:
    """Python files under directory `top`, pruning excluded and ignored directories.

    Symlinked directories are walked last, and only when their target has not been walked
    yet: a tree reachable without the link keeps its own paths, and a link loop ends.
    """
    root_prefix = _as_directory_prefix(config.relative_path(top))
    exclude = _Matcher(_set_aside_patterns_matching(_exclude_spec(config), root_prefix))
    top_real = os.path.realpath(top)
    visited_real_paths = {top_real}
    # (path, real path, path as patterns see it, ignore layers) of directories to list.
    pending = [(os.fspath(top), top_real, root_prefix, _enclosing_ignore_layers(top))]
    symlinked: list[tuple[str, str, tuple[_IgnoreLayer, ...]]] = []
    while pending or symlinked:
        if not pending:
            link, prefix, layers = symlinked.pop()
            real = os.path.realpath(link)
            if real not in visited_real_paths:
                visited_real_paths.add(real)
                pending.append((link, real, prefix, layers))
            continue
        directory, directory_real, prefix, layers = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:  # unreadable directory: nothing in it can be linted
            continue
        if any(entry.name == ".gitignore" for entry in entries):
            own_ignore_file = _read_ignore_file(os.path.join(directory, ".gitignore"))
            if own_ignore_file is not None:
                layers = ((_Matcher(own_ignore_file), ""), *layers)
        for entry in entries:
            try:
                is_directory = entry.is_dir()
                is_file = not is_directory and entry.is_file()
            except OSError:  # a symlink loop: neither a file nor a directory to walk
                continue
            if is_directory:
                name = entry.name + "/"
                if exclude.decision(prefix + name) or _is_ignored(layers, name):
                    continue
                child_layers = tuple(
                    (matcher, layer_prefix + name) for matcher, layer_prefix in layers
                )
                if entry.is_symlink():
                    symlinked.append((entry.path, prefix + name, child_layers))
                    continue
                real = os.path.join(directory_real, entry.name)
                if real not in visited_real_paths:  # else already reached through a link
                    visited_real_paths.add(real)
                    pending.append((entry.path, real, prefix + name, child_layers))
            elif entry.name.endswith(PYTHON_SUFFIXES) and is_file:
                # is_file() is False for a broken symlink, which is skipped silently.
                name = entry.name
                if not exclude.decision(prefix + name) and not _is_ignored(layers, name):
                    yield Path(entry.path)


def _as_directory_prefix(relative: str) -> str:
    """`relative` normalized as pathspec matches it, ending in "/" unless it is the root."""
    normalized = normalize_file(relative)
    return "" if normalized in (".", "") else normalized.rstrip("/") + "/"


def _set_aside_patterns_matching(
    spec: pathspec.GitIgnoreSpec, directory_prefix: str
) -> pathspec.GitIgnoreSpec:
    """Drop the patterns that exclude a directory named on the command line.

    Gitignore patterns also match everything below a matching directory, so without this
    `stridelint build/` would find nothing; like Ruff, a named directory is walked.
    """
    if not directory_prefix or not spec.match_file(directory_prefix):
        return spec
    return pathspec.GitIgnoreSpec(
        [pattern for pattern in spec.patterns if pattern.match_file(directory_prefix) is None]
    )


def _is_ignored(layers: Sequence[_IgnoreLayer], name: str) -> bool:
    """Git's precedence: the deepest ignore file with a matching pattern decides, and in that
    file the last matching pattern does (so `!keep.py` re-includes)."""
    for matcher, prefix in layers:
        decision = matcher.decision(prefix + name)
        if decision is not None:
            return decision
    return False


def _enclosing_ignore_layers(top: Path) -> tuple[_IgnoreLayer, ...]:
    """Ignore files above `top` that apply inside it: the `.gitignore` of each parent up to
    the root of the enclosing git repository, then that repository's `.git/info/exclude`."""
    top_absolute = Path(os.path.abspath(top))
    repository = next(
        (
            directory
            for directory in (top_absolute, *top_absolute.parents)
            if (directory / ".git").exists()
        ),
        None,
    )
    if repository is None:
        return ()
    # Each ignore file with the directory its patterns are anchored in, deepest first.
    sources = [
        (directory / ".gitignore", directory)
        for directory in top_absolute.parents
        if directory == repository or repository in directory.parents
    ]
    sources.append((repository / ".git" / "info" / "exclude", repository))
    layers = []
    for ignore_file, base in sources:
        spec = _read_ignore_file(ignore_file)
        if spec is not None:
            prefix = _as_directory_prefix(top_absolute.relative_to(base).as_posix())
            layers.append((_Matcher(_set_aside_patterns_matching(spec, prefix)), prefix))
    return tuple(layers)


def _read_ignore_file(path: str | Path) -> pathspec.GitIgnoreSpec | None:
    """The file's patterns, or None when it is missing, unreadable or has none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
    except OSError:
        return None
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # git skips the lines it cannot parse; so do we
        patterns = []
        for line in lines:
            try:
                patterns += pathspec.GitIgnoreSpec.from_lines([line]).patterns
            except ValueError:
                continue
        spec = pathspec.GitIgnoreSpec(patterns)
    if all(pattern.include is None for pattern in spec.patterns):
        return None
    return spec
