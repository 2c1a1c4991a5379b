"""pytest plugin: run every test under `stridelint.runtime.watch()`, off unless asked for.

`--stridelint-runtime` watches each test's call phase and prints a summary table;
`--stridelint-runtime-fail` also fails the tests that recorded events;
`--stridelint-runtime-json PATH` also writes every event, with its test id, as JSON.

Without these options the plugin only adds them to `--help`: it registers no hooks that run
and does not import torch, so a run that does not ask pays nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generator

import pytest

from stridelint.runtime.report import (
    Event,
    event_from_dict,
    event_to_dict,
    format_table,
    summarize,
    write_json,
)

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

PLUGIN_NAME = "stridelint-runtime-watcher"
WORKER_OUTPUT_KEY = "stridelint_runtime_events"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("stridelint", "stridelint runtime check of broadcast tensors")
    group.addoption(
        "--stridelint-runtime",
        action="store_true",
        help="record ops that materialize or write broadcast (stride-0) tensors in each test",
    )
    group.addoption(
        "--stridelint-runtime-fail",
        action="store_true",
        help="like --stridelint-runtime, and fail the tests that record events",
    )
    group.addoption(
        "--stridelint-runtime-json",
        metavar="PATH",
        help="like --stridelint-runtime, and write all events to PATH as JSON",
    )
    group.addoption(
        "--stridelint-runtime-threshold",
        type=float,
        default=16.0,
        metavar="RATIO",
        help="record an op whose output exceeds RATIO x its inputs' storage (default 16)",
    )
    group.addoption(
        "--stridelint-runtime-min-bytes",
        type=int,
        default=1 << 20,
        metavar="N",
        help="ignore outputs smaller than N bytes; writes are always recorded (default 1 MiB)",
    )


def pytest_configure(config: pytest.Config) -> None:
    option = config.option
    if any(
        (option.stridelint_runtime, option.stridelint_runtime_fail, option.stridelint_runtime_json)
    ):
        config.pluginmanager.register(RuntimeWatch(config), PLUGIN_NAME)


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


class RuntimeWatch:
    """The hooks that run once the plugin is switched on."""

    def __init__(self, config: pytest.Config) -> None:
        try:
            from stridelint.runtime.watcher import watch
        except ImportError as error:  # torch is an optional dependency of stridelint
            raise pytest.UsageError(f"--stridelint-runtime needs PyTorch: {error}") from error
        self.watch = watch
        self.fail = config.option.stridelint_runtime_fail
        self.config = config
        self.json_path = config.option.stridelint_runtime_json
        self.threshold = config.option.stridelint_runtime_threshold
        self.min_bytes = config.option.stridelint_runtime_min_bytes
        self.records: list[tuple[str | None, Event]] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
        watcher = self.watch(threshold=self.threshold, min_bytes=self.min_bytes)
        with watcher:
            try:
                result = yield
            finally:
                self.records.extend((item.nodeid, event) for event in watcher.events)
        if self.fail and watcher.events:
            lines = "\n".join(f"  {event.describe()}" for event in watcher.events)
            pytest.fail(
                f"stridelint runtime: {len(watcher.events)} op(s) materialized or wrote "
                f"broadcast tensors:\n{lines}",
                pytrace=False,
            )
        return result

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Under pytest-xdist a worker hands its events to the controller, which reports them all.
        if _is_xdist_worker(self.config):
            records = [event_to_dict(event, test) for test, event in self.records]
            self.config.workeroutput[WORKER_OUTPUT_KEY] = records  # type: ignore[attr-defined]
        elif self.json_path:
            write_json(self.json_path, self.records)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """pytest-xdist's controller hook: a worker finished and sent its `workeroutput`."""
        records = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY, [])
        self.records.extend(event_from_dict(record) for record in records)

    def pytest_terminal_summary(self, terminalreporter: TerminalReporter) -> None:
        terminalreporter.section("stridelint runtime")
        if self.records:
            terminalreporter.write_line(format_table(summarize(e for _, e in self.records)))
        else:
            terminalreporter.write_line("no op materialized or wrote a broadcast tensor")
        if self.json_path:
            terminalreporter.write_line(f"events written to {self.json_path}")
