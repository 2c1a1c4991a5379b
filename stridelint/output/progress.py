"""A progress bar on stderr for long runs, so a big check does not look hung.

Shown only when stderr is a terminal and the run is long enough to be worth watching: a
pre-commit batch, a pipe or a CI log never gets one.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TextIO

import click

# Below this a check finishes in about a second; a bar would only flicker.
MIN_FILES = 100


def wants_progress(file_count: int, stream: TextIO, *, quiet: bool) -> bool:
    return not quiet and file_count >= MIN_FILES and stream.isatty()


@contextlib.contextmanager
def progress(
    file_count: int, *, quiet: bool, stream: TextIO | None = None
) -> Iterator[Callable[[], None] | None]:
    """Yield a tick to call once per checked file, or None when no bar is wanted."""
    stream = stream or sys.stderr
    if not wants_progress(file_count, stream, quiet=quiet):
        yield None
        return
    # No ETA: files differ in cost by orders of magnitude (a cache hit, a pre-filtered file, a
    # full analysis) and the pool hands results back in bursts, so any estimate misleads.
    with click.progressbar(length=file_count, label="Checking", file=stream, show_pos=True,
                           show_eta=False, width=30) as bar:
        yield lambda: bar.update(1)
