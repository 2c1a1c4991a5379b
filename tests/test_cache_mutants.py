"""The cache tests notice a broken cache: each test of tests/test_cache.py is run against the
broken caches ("mutants") it is meant to catch, and must fail.

The mutants are installed with monkeypatch (in process) or, for the test that runs the CLI
in a subprocess, by a `sitecustomize.py` on that subprocess's PYTHONPATH; nothing on disk
under stridelint/ changes. Each mutant is installed before the test runs, outside
`pytest.raises`, so a mutant that can no longer be built (a renamed method) errors instead of
counting as caught. Any exception from the test counts: an assertion, or the crash a fragile
cache causes (an unpacking of the missing entry, an unhandled read error).

Mutants:
    load-misses          `ResultCache.load` always returns None (the issue's broken cache)
    store-drops          `ResultCache.store` writes nothing
    key-ignores-content  the key is computed as if every file were empty
    key-ignores-settings the key leaves out the settings fingerprint
    key-ignores-path     the key leaves out the file's path
    key-ignores-version  key and folder use the version this session started with
    fragile-load         `load` without its checks: no key/format check, errors propagate
    fragile-store        `store` whose write errors propagate
    index-drops          the file index is never written
    index-ignores-stamp  every file looks unchanged to the index (its stat is not read)
    index-ignores-key    the index's keys are never those of the files (a touch is a miss)
    index-trusts-key     a file the index knows as clean is clean whatever its bytes
    clean-entries-stored a run writes an entry for each clean file too
    fragile-index        the index read without its checks: errors propagate
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import stridelint
import stridelint.cache as cache_module
from stridelint.cache import ResultCache
from tests import test_cache as cache_tests

# ---- the mutants ------------------------------------------------------------------------------


def _load_misses(monkeypatch):
    monkeypatch.setattr(ResultCache, "load", lambda self, key: None)


def _store_drops(monkeypatch):
    monkeypatch.setattr(ResultCache, "store", lambda self, key, findings: None)


def _key_with(rewrite: Callable) -> Callable:
    def install(monkeypatch):
        original = ResultCache.key

        def key(self, relative_path, data):
            return rewrite(original, self, relative_path, data)

        monkeypatch.setattr(ResultCache, "key", key)

    return install


def _without_settings(original, self, relative_path, data):
    saved, self.settings = self.settings, ""
    try:
        return original(self, relative_path, data)
    finally:
        self.settings = saved


def _key_ignores_version(monkeypatch):
    fixed = cache_module.__version__
    original_init, original_key = ResultCache.__init__, ResultCache.key

    def init(self, directory, settings_fingerprint):
        original_init(self, directory, settings_fingerprint)
        self.directory = Path(directory) / f"v{fixed}"

    def key(self, relative_path, data):
        saved = cache_module.__version__, stridelint.__version__
        cache_module.__version__ = stridelint.__version__ = fixed
        try:
            return original_key(self, relative_path, data)
        finally:
            cache_module.__version__, stridelint.__version__ = saved

    monkeypatch.setattr(ResultCache, "__init__", init)
    monkeypatch.setattr(ResultCache, "key", key)


def _fragile_load(monkeypatch):
    path_of, decode_finding = ResultCache._path, cache_module._finding  # fail here if renamed

    def load(self, key):
        path = path_of(self, key)
        if not path.exists():
            return None
        return [decode_finding(item) for item in json.loads(path.read_text())["findings"]]

    monkeypatch.setattr(ResultCache, "load", load)


def _fragile_store(monkeypatch):
    path_of, encode_finding = ResultCache._path, cache_module._encode  # fail here if renamed

    def store(self, key, findings):
        path = path_of(self, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        encoded = [encode_finding(f) for f in findings]
        document = {"format": cache_module.FORMAT, "key": key, "findings": encoded}
        path.write_text(json.dumps(document))

    monkeypatch.setattr(ResultCache, "store", store)


def _index_drops(monkeypatch):
    monkeypatch.setattr(ResultCache, "store_file_index", lambda self, files: None)


def _index_ignores_stamp(monkeypatch):
    from stridelint import engine

    monkeypatch.setattr(engine, "_stamp", lambda path: (0, 0))


def _index_ignores_key(monkeypatch):
    original = ResultCache.file_index

    def file_index(self):
        return {path: (m, s, "", f) for path, (m, s, _, f) in original(self).items()}

    monkeypatch.setattr(ResultCache, "file_index", file_index)


def _index_trusts_key(monkeypatch):
    from stridelint import engine

    original = engine._check_file_keyed

    def keyed(path, config, mode, cache, clean_key=None, indexed=False):
        if clean_key is not None:
            return engine.FileReport(str(path), ""), clean_key
        return original(path, config, mode, cache, clean_key, indexed)

    monkeypatch.setattr(engine, "_check_file_keyed", keyed)


def _clean_entries_stored(monkeypatch):
    from stridelint import engine

    original = engine._check_file_keyed

    def keyed(path, config, mode, cache, clean_key=None, indexed=False):
        return original(path, config, mode, cache, clean_key, False)

    monkeypatch.setattr(engine, "_check_file_keyed", keyed)


def _fragile_index(monkeypatch):
    index_of = ResultCache._file_index  # fail here if renamed

    def file_index(self):
        path = index_of(self)
        if not path.exists():
            return {}
        return {p: tuple(v) for p, v in json.loads(path.read_text())["files"].items()}

    monkeypatch.setattr(ResultCache, "file_index", file_index)


MUTANTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "load-misses": _load_misses,
    "store-drops": _store_drops,
    "key-ignores-content": _key_with(lambda key, self, path, data: key(self, path, b"")),
    "key-ignores-settings": _key_with(_without_settings),
    "key-ignores-path": _key_with(lambda key, self, path, data: key(self, "", data)),
    "key-ignores-version": _key_ignores_version,
    "fragile-load": _fragile_load,
    "fragile-store": _fragile_store,
    "index-drops": _index_drops,
    "index-ignores-stamp": _index_ignores_stamp,
    "index-ignores-key": _index_ignores_key,
    "index-trusts-key": _index_trusts_key,
    "clean-entries-stored": _clean_entries_stored,
    "fragile-index": _fragile_index,
}

# The same mutants in a CLI subprocess (only these two are run there).
SITECUSTOMIZE = {
    "load-misses": "ResultCache.load = lambda self, key: None\n",
    "store-drops": "ResultCache.store = lambda self, key, findings: None\n",
}

# ---- which test catches which mutant ----------------------------------------------------------

BROKEN = {"load-misses", "store-drops"}
t = cache_tests
CATCHES: list[tuple[Callable, dict, set[str]]] = [
    (t.test_a_warm_run_is_served_from_the_cache_fixes_included, {}, BROKEN),
    (t.test_a_hit_returns_what_was_stored, {}, BROKEN),
    (t.test_a_changed_file_misses_and_each_content_keeps_its_entry, {},
     BROKEN | {"key-ignores-content"}),
    *[
        (t.test_a_settings_change_misses_and_changing_back_hits, {"change": change},
         BROKEN | {"key-ignores-settings"})
        for change in ({"ignore": ("SL1",)}, {"broadcast_hints": ("x",)}, {"scope": "all"},
                       {"per_file_ignores": (("other.py", ("SL101",)),)})
    ],
    (t.test_the_same_content_at_another_path_misses, {}, BROKEN | {"key-ignores-path"}),
    (t.test_a_new_version_misses, {}, BROKEN | {"key-ignores-version"}),
    (t.test_moving_the_checkout_keeps_the_cache, {}, BROKEN),
    *[
        (t.test_a_damaged_entry_is_a_miss_and_the_run_repairs_it, {"damage": damage},
         BROKEN | {"fragile-load"})
        for damage in t.ENTRY_DAMAGE.values()
    ],
    (t.test_an_unreadable_or_unwritable_cache_costs_only_time, {},
     BROKEN | {"fragile-load", "fragile-store"}),
    (t.test_fix_recomputes_fixable_entries_and_caches_the_fixed_file, {}, BROKEN),
    (t.test_a_fix_run_uses_an_entry_without_applicable_fixes, {}, BROKEN),
    (t.test_run_files_uses_the_default_cache, {}, BROKEN),
    (t.test_an_unchanged_clean_file_is_not_read_again, {}, {"index-drops"}),
    (t.test_a_clean_file_changed_since_is_read_again, {},
     {"index-ignores-stamp", "index-trusts-key"}),
    (t.test_a_clean_file_is_recorded_in_the_index_alone_and_a_touch_keeps_it_clean, {},
     {"index-drops", "index-ignores-key", "index-trusts-key", "clean-entries-stored"}),
    (t.test_a_run_stopped_early_keeps_the_files_it_checked, {}, {"index-drops"}),
    *[
        (t.test_a_damaged_index_is_empty_and_the_run_repairs_it, {"damage": damage},
         {"index-drops", "fragile-index"})
        for damage in t.INDEX_DAMAGE.values()
    ],
    (t.test_a_warm_run_serves_unchanged_files_with_findings_without_a_pool, {}, {"index-drops"}),
    (t.test_the_cli_reuses_its_cache_and_no_cache_leaves_none, {}, BROKEN),
]  # fmt: skip


def _label(test: Callable, params: dict) -> str:
    name = test.__name__.removeprefix("test_")
    if "damage" in params:
        damages = [*t.ENTRY_DAMAGE.items(), *t.INDEX_DAMAGE.items()]
        name += "[" + next(k for k, v in damages if v is params["damage"]) + "]"
    elif params:
        name += "[" + next(iter(params["change"])) + "]"
    return name


CASES = [
    pytest.param(test, params, mutant, id=f"{_label(test, params)}-{mutant}")
    for test, params, mutants in CATCHES
    for mutant in sorted(mutants)
]


def _bind(test: Callable, params: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable:
    """The test with its arguments: the fixtures it names, built as pytest would, and params."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    fixtures = {
        "tmp_path": lambda: tmp_path,
        "monkeypatch": lambda: monkeypatch,
        "project": lambda: cache_tests.Project(tmp_path / "project", monkeypatch),
    }
    arguments = {
        name: params[name] if name in params else fixtures[name]()
        for name in inspect.signature(test).parameters
    }
    return lambda: test(**arguments)


def _install(mutant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    MUTANTS[mutant](monkeypatch)
    if mutant in SITECUSTOMIZE:
        folder = tmp_path / "mutant-site"
        folder.mkdir()
        (folder / "sitecustomize.py").write_text(
            "from stridelint.cache import ResultCache\n" + SITECUSTOMIZE[mutant]
        )
        monkeypatch.setenv(cache_tests.MUTANT_PATH_VARIABLE, str(folder))


def test_every_cache_test_is_listed():
    listed = {test.__name__ for test, _, _ in CATCHES}
    defined = {
        name for name, value in vars(cache_tests).items()
        if name.startswith("test_") and callable(value)
    }  # fmt: skip
    assert listed == defined


def test_every_test_in_the_list_passes_unmutated(tmp_path, monkeypatch):
    """The harness itself: the listed tests, called as the mutant runs call them, pass."""
    for index, (test, params, _) in enumerate(CATCHES):
        with monkeypatch.context() as patch:
            _bind(test, params, tmp_path / str(index), patch)()


@pytest.mark.parametrize(("test", "params", "mutant"), CASES)
def test_the_cache_tests_catch_a_broken_cache(test, params, mutant, tmp_path, monkeypatch):
    _install(mutant, tmp_path, monkeypatch)
    run = _bind(test, params, tmp_path / "run", monkeypatch)
    with pytest.raises(Exception):  # any failure of the test is the detection
        run()
