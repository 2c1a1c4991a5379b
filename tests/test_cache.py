"""The result cache is used: a warm run is served from it, not recomputed; a change of the
file, its path, the settings or the tool's version misses it; a bad entry is never trusted.

A run is "served from the cache" when it parses nothing with LibCST (`Parses` counts the
calls; every cold run here must parse, so the counter cannot pass vacuously) and returns what
a check without a cache returns. Each run uses a fresh `ResultCache` over the same folder, as
a new process would. tests/test_cache_mutants.py runs each of these tests against broken
caches (`load` that always misses, `store` that drops, keys that ignore one of their parts)
and asserts that they fail.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import libcst
import pytest

import stridelint
import stridelint.cache
from stridelint.cache import ResultCache
from stridelint.config import Config
from stridelint.engine import FixMode, check_file, default_cache, fix_text, run_files
from stridelint.source import decode

# SL101 with an unsafe fix (a float sum) and SL101 with a safe one (a count).
FLOAT_SUM = "import torch\n\n\ndef f(x, n):\n    e = x.expand(n, -1)\n    return (e * 0.5).sum()\n"
COUNT = "import torch\n\n\ndef count(x, n):\n    e = x.expand(n, -1)\n    return (e != 0).sum()\n"
CLEAN = "import torch\n\n\ndef f(x, n):\n    e = torch.zeros(n, 3)\n    return (e * 0.5).sum()\n"


class Parses:
    """Counts LibCST parses (the engine parses every file it analyses, and each fix result)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = libcst.parse_module

        def counting(*args, **kwargs):
            self.count += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(libcst, "parse_module", counting)

    def during(self, action):
        before = self.count
        result = action()
        return result, self.count - before


class Project:
    def __init__(
        self, root: Path, monkeypatch: pytest.MonkeyPatch, cache_dir: Path | None = None
    ) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.cache_dir = cache_dir or root / "cache"
        self.config = Config(root=root, source=None)
        self.parses = Parses(monkeypatch)

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.write_text(text)
        return path

    def cache(self, config: Config | None = None) -> ResultCache:
        return ResultCache(self.cache_dir, (config or self.config).fingerprint())

    def check(self, path: Path, config: Config | None = None, mode: FixMode = FixMode()):
        """(report, parses) of a run with a fresh cache object over the project's cache folder."""
        config = config or self.config
        return self.parses.during(lambda: check_file(path, config, mode, self.cache(config)))

    def fresh(self, path: Path, config: Config | None = None):
        """The findings of a check that uses no cache at all."""
        return check_file(path, config or self.config, FixMode(), None).findings

    def entries(self) -> list[Path]:
        return sorted(self.cache_dir.rglob("*.json"))

    def entry(self) -> Path:
        entries = self.entries()
        assert len(entries) == 1, f"expected one cache entry, found {len(entries)}"
        return entries[0]

    def assert_cold_then_warm(self, path: Path, config: Config | None = None):
        cold, cold_parses = self.check(path, config)
        assert cold_parses > 0, "a cold run must parse (else this counter proves nothing)"
        assert cold.findings == self.fresh(path, config) != []
        warm, warm_parses = self.check(path, config)
        assert warm_parses == 0, "the warm run parsed: it was not served from the cache"
        assert warm.findings == cold.findings
        return cold


@pytest.fixture
def project(tmp_path, monkeypatch) -> Project:
    return Project(tmp_path / "project", monkeypatch)


def test_a_warm_run_is_served_from_the_cache_fixes_included(project):
    path = project.write("m.py", FLOAT_SUM)
    cold = project.assert_cold_then_warm(path)
    assert cold.findings[0].fix is not None and cold.findings[0].fix.edits
    assert len(project.entries()) == 1


def test_a_hit_returns_what_was_stored(project):
    """The warm findings come from the entry: edit its message and the run reports the edit."""
    path = project.write("m.py", FLOAT_SUM)
    project.check(path)
    entry = project.entry()
    document = json.loads(entry.read_text())
    document["findings"][0]["message"] = "from the cache"
    entry.write_text(json.dumps(document))
    report, parses = project.check(path)
    assert parses == 0 and [f.message for f in report.findings] == ["from the cache"]


def test_a_changed_file_misses_and_each_content_keeps_its_entry(project):
    path = project.write("m.py", FLOAT_SUM)
    project.assert_cold_then_warm(path)
    project.write("m.py", COUNT)
    changed, parses = project.check(path)
    assert parses > 0 and changed.findings == project.fresh(path)
    assert changed.findings[0].fix.applicability.value == "safe"  # not the float sum's entry
    project.write("m.py", CLEAN)
    clean, _ = project.check(path)  # the pre-filter may spare this one its parse
    assert clean.findings == [] == project.fresh(path)
    project.write("m.py", FLOAT_SUM)
    back, parses = project.check(path)
    assert parses == 0 and back.findings == project.fresh(path)


@pytest.mark.parametrize(
    "change",
    [{"ignore": ("SL1",)}, {"broadcast_hints": ("x",)}, {"scope": "all"},
     {"per_file_ignores": (("other.py", ("SL101",)),)}],
    ids=lambda change: next(iter(change)),
)  # fmt: skip
def test_a_settings_change_misses_and_changing_back_hits(project, change):
    path = project.write("m.py", FLOAT_SUM)
    project.assert_cold_then_warm(path)
    other = dataclasses.replace(project.config, **change)
    assert other.fingerprint() != project.config.fingerprint()
    report, parses = project.check(path, other)
    assert parses > 0 and report.findings == project.fresh(path, other)
    report, parses = project.check(path, other)
    assert parses == 0, "the new settings' own entry must be used"
    report, parses = project.check(path)
    assert parses == 0 and report.findings == project.fresh(path)


def test_the_same_content_at_another_path_misses(project):
    """Per-file-ignores depend on the path, so the key does too. (SL101 only: with every rule
    off, nothing would be parsed, hit or miss.)"""
    config = dataclasses.replace(project.config, per_file_ignores=(("b.py", ("SL101",)),))
    a = project.write("a.py", FLOAT_SUM)
    b = project.write("b.py", FLOAT_SUM)
    project.assert_cold_then_warm(a, config)
    report, parses = project.check(b, config)
    assert parses > 0 and report.findings == [] == project.fresh(b, config)


def test_a_new_version_misses(project, monkeypatch):
    path = project.write("m.py", FLOAT_SUM)
    project.assert_cold_then_warm(path)
    monkeypatch.setattr(stridelint, "__version__", "999.0")
    monkeypatch.setattr(stridelint.cache, "__version__", "999.0", raising=False)
    report, parses = project.check(path)
    assert parses > 0 and report.findings == project.fresh(path)
    report, parses = project.check(path)
    assert parses == 0


def test_moving_the_checkout_keeps_the_cache(tmp_path, monkeypatch):
    """`root` is not part of the key: the same file at the same relative path, under another
    root, is a hit (a cache folder shared by two checkouts, or a checkout moved with it)."""
    shared = tmp_path / "shared-cache"
    first = Project(tmp_path / "one", monkeypatch, shared)
    second = Project(tmp_path / "two", monkeypatch, shared)
    first.assert_cold_then_warm(first.write("pkg.py", FLOAT_SUM))
    path = second.write("pkg.py", FLOAT_SUM)
    report, parses = second.check(path)
    assert parses == 0 and report.findings == second.fresh(path)


def _edited(change):
    def damage(text: str) -> str:
        document = json.loads(text)
        change(document)
        return json.dumps(document)

    return damage


ENTRY_DAMAGE = {
    "not json": lambda text: "{not json",
    "empty": lambda text: "",
    "truncated": lambda text: text[: len(text) // 2],
    "not utf-8": lambda text: "\udcff",  # written as the byte 0xff
    "a list": lambda text: "[]",
    "foreign key": _edited(lambda d: d.update(key="0" * 64)),
    "other format": _edited(lambda d: d.update(format=d["format"] + 1)),
    "code not a string": _edited(lambda d: d["findings"][0].update(code=101)),
    "row not an int": _edited(lambda d: d["findings"][0].update(start=["6", 13])),
    "bad applicability": _edited(lambda d: d["findings"][0]["fix"].update(applicability="maybe")),
    "edit flag not a bool": _edited(
        lambda d: d["findings"][0]["fix"]["edits"][0].__setitem__(5, 1)
    ),
    "finding without fields": _edited(lambda d: d.update(findings=[{"code": "SL101"}])),
}


@pytest.mark.parametrize("damage", ENTRY_DAMAGE.values(), ids=ENTRY_DAMAGE.keys())
def test_a_damaged_entry_is_a_miss_and_the_run_repairs_it(project, damage):
    path = project.write("m.py", FLOAT_SUM)
    project.check(path)
    entry = project.entry()
    damaged = damage(entry.read_text())
    assert damaged != entry.read_text()
    entry.write_bytes(damaged.encode("utf-8", "surrogateescape"))
    report, parses = project.check(path)
    assert parses > 0 and report.findings == project.fresh(path)
    report, parses = project.check(path)
    assert parses == 0 and report.findings == project.fresh(path), "the miss did not store a good entry"


def test_an_unreadable_or_unwritable_cache_costs_only_time(project, monkeypatch):
    """An entry that is a folder cannot be read or replaced; a cache folder under a file cannot
    be created: both runs still report what a run without a cache does, and the cache works
    again once the obstacle is gone."""
    path = project.write("m.py", FLOAT_SUM)
    project.check(path)
    entry = project.entry()
    entry.unlink()
    entry.mkdir()
    report, parses = project.check(path)
    assert parses > 0 and report.findings == project.fresh(path) and entry.is_dir()
    entry.rmdir()  # once the obstacle is gone, the cache works again
    project.check(path)
    assert project.check(path)[1] == 0
    blocked = Project(project.root, monkeypatch, project.root / "m.py" / "cache")
    assert blocked.check(path)[0].findings == project.fresh(path)


def test_fix_recomputes_fixable_entries_and_caches_the_fixed_file(project):
    """A cached finding with a fix that `--fix` applies cannot stand in for the fix: the file is
    fixed. The fixed content's findings are stored, so the next check is a hit."""
    path = project.write("m.py", COUNT)
    project.assert_cold_then_warm(path)
    report, parses = project.check(path, mode=FixMode(apply=True))
    expected = fix_text(decode(COUNT.encode()), project.config, path, False)
    assert parses > 0 and report.fixed_count == 1 and path.read_text() == expected.text != COUNT
    after, parses = project.check(path)
    assert parses == 0 and after.findings == project.fresh(path) == expected.findings


def test_a_fix_run_uses_an_entry_without_applicable_fixes(project):
    """An unsafe fix does not apply under plain `--fix`, so the cached findings are the answer."""
    path = project.write("m.py", FLOAT_SUM)
    project.assert_cold_then_warm(path)
    report, parses = project.check(path, mode=FixMode(apply=True))
    assert parses == 0 and report.fixed_count == 0 and path.read_text() == FLOAT_SUM
    assert report.findings == project.fresh(path)


def test_run_files_uses_the_default_cache(project):
    paths = [project.write(f"m{i}.py", FLOAT_SUM.replace("f(", f"f{i}(")) for i in range(3)]
    cache_dir = project.root / ".custom-cache"

    def run():
        cache = default_cache(project.config, cache_dir)
        return run_files(paths, project.config, FixMode(), jobs=1, cache=cache)

    cold, cold_parses = project.parses.during(run)
    warm, warm_parses = project.parses.during(run)
    assert cold_parses >= 3 and warm_parses == 0
    assert [r.findings for r in warm] == [r.findings for r in cold] == [project.fresh(p) for p in paths]
    assert len(list(cache_dir.rglob("*.json"))) == 3


def _run(project: Project, paths: list[Path], cache_dir: Path):
    """(reports, the paths whose bytes the run read) of run_files over a fresh cache object."""
    read: list[Path] = []
    original = Path.read_bytes

    def reading(self):
        read.append(self)
        return original(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "read_bytes", reading)
        reports = run_files(paths, project.config, FixMode(), jobs=1,
                            cache=default_cache(project.config, cache_dir))
    return reports, read


def test_an_unchanged_clean_file_is_not_read_again(project):
    """A warm run stats a file it last found clean and, unchanged, does not open it; a file
    with findings is still served from its entry (its text is needed to show them)."""
    clean, flagged = project.write("clean.py", CLEAN), project.write("flagged.py", FLOAT_SUM)
    cache_dir = project.root / "cache"
    cold, cold_read = _run(project, [clean, flagged], cache_dir)
    assert cold_read == [clean, flagged]
    warm, warm_read = _run(project, [clean, flagged], cache_dir)
    assert warm_read == [flagged]
    assert [r.findings for r in warm] == [r.findings for r in cold] == [[], project.fresh(flagged)]


def test_a_clean_file_changed_since_is_read_again(project):
    """A new mtime or a new size is a change, even at the same size or the same mtime."""
    path = project.write("m.py", CLEAN)
    cache_dir = project.root / "cache"
    _run(project, [path], cache_dir)
    info = path.stat()
    path.write_text(CLEAN.replace("0.5", "0.7"))  # same size: only the mtime tells
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
    assert _run(project, [path], cache_dir)[1] == [path]
    path.write_text(COUNT)  # now with a finding, and the old mtime: only the size tells
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
    reports, read = _run(project, [path], cache_dir)
    assert read == [path] and reports[0].findings == project.fresh(path) != []


def _checked(project: Project, paths: list[Path], cache_dir: Path):
    """(reports, the paths the run checked: read and not served from the cache)."""
    from stridelint import engine

    checked: list[str] = []
    original = engine.check_bytes

    def checking(data, display_path, *args, **kwargs):
        checked.append(display_path)
        return original(data, display_path, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "check_bytes", checking)
        reports = run_files(paths, project.config, FixMode(), jobs=1,
                            cache=default_cache(project.config, cache_dir))
    return reports, [Path(p) for p in checked]


def test_a_clean_file_is_recorded_in_the_index_alone_and_a_touch_keeps_it_clean(project):
    """A run writes no entry for a file with nothing to report: the index holds its key.
    Touched (new mtime, same bytes), it is read again and found clean by its key, not
    checked; its bytes changed at the same size, it is checked."""
    clean, flagged = project.write("clean.py", CLEAN), project.write("flagged.py", FLOAT_SUM)
    cache_dir = project.root / "cache"
    checked = _checked(project, [clean, flagged], cache_dir)[1]
    assert checked == [clean, flagged]
    assert len(list(cache_dir.rglob("*.json"))) == 1, "only the file with findings has an entry"
    info = clean.stat()
    os.utime(clean, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
    touched, checked = _checked(project, [clean, flagged], cache_dir)
    assert checked == [] and [r.findings for r in touched] == [[], project.fresh(flagged)]
    clean.write_text(CLEAN.replace("0.5", "0.7"))
    os.utime(clean, ns=(info.st_atime_ns, info.st_mtime_ns + 2 * 10**9))
    assert _checked(project, [clean, flagged], cache_dir)[1] == [clean]
    assert _checked(project, [clean, flagged], cache_dir)[1] == []


def test_a_run_stopped_early_keeps_the_files_it_checked(project, monkeypatch):
    """Clean files have no entry of their own: a run interrupted after two of three files
    still writes the index for those two, and the next run checks only the third."""
    from stridelint import engine

    paths = [project.write(f"clean{i}.py", CLEAN) for i in range(3)]
    cache_dir = project.root / "cache"
    original = engine.check_bytes

    def interrupted(data, display_path, *args, **kwargs):
        if display_path == str(paths[2]):
            raise KeyboardInterrupt
        return original(data, display_path, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "check_bytes", interrupted)
        with pytest.raises(KeyboardInterrupt):
            _checked(project, paths, cache_dir)
    reports, checked = _checked(project, paths, cache_dir)
    assert checked == [paths[2]] and [r.findings for r in reports] == [[], [], []]


INDEX_DAMAGE = {
    "not json": lambda text: "{not json",
    "truncated": lambda text: text[: len(text) // 2],
    "key not a string": _edited(lambda d: [v.__setitem__(2, 7) for v in d["files"].values()]),
    "flag not a bool": _edited(lambda d: [v.__setitem__(3, 0) for v in d["files"].values()]),
    "a field short": _edited(lambda d: [v.pop() for v in d["files"].values()]),
    "other format": _edited(lambda d: d.update(format=d["format"] - 1)),
}


@pytest.mark.parametrize("damage", INDEX_DAMAGE.values(), ids=INDEX_DAMAGE.keys())
def test_a_damaged_index_is_empty_and_the_run_repairs_it(project, damage):
    """What a run leaves when it is stopped while writing its index (a truncated temporary is
    never renamed, but any damage): every file is checked again, and the index works after."""
    paths = [project.write("clean.py", CLEAN), project.write("flagged.py", COUNT)]
    cache_dir = project.root / "cache"
    _checked(project, paths, cache_dir)
    (index,) = cache_dir.rglob("*.index")
    damaged = damage(index.read_text())
    assert damaged != index.read_text()
    index.write_text(damaged)
    reports, checked = _checked(project, paths, cache_dir)
    assert [r.findings for r in reports] == [project.fresh(p) for p in paths]
    assert checked == [paths[0]], "the clean file must be checked again (the other has an entry)"
    assert _checked(project, paths, cache_dir)[1] == []


def test_a_warm_run_serves_unchanged_files_with_findings_without_a_pool(project, monkeypatch):
    """Workers start only for files the index does not know: a warm run whose files all
    have findings (so each is read to show them) stays in this process."""
    import concurrent.futures

    paths = [project.write(f"m{i}.py", FLOAT_SUM.replace("f(", f"f{i}(")) for i in range(17)]
    cache_dir = project.root / "cache"

    def run():
        cache = default_cache(project.config, cache_dir)
        return run_files(paths, project.config, FixMode(), jobs=1, cache=cache)

    cold = run()

    def no_pool(*args, **kwargs):
        raise AssertionError("a warm run started worker processes")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    cache = default_cache(project.config, cache_dir)
    warm = run_files(paths, project.config, FixMode(), jobs=2, cache=cache)
    assert [r.findings for r in warm] == [r.findings for r in cold]
    assert all(r.findings for r in warm)


# ---- through the command line -----------------------------------------------------------------

# Set by tests/test_cache_mutants.py: a folder whose sitecustomize.py breaks the cache in the
# stridelint subprocess.
MUTANT_PATH_VARIABLE = "STRIDELINT_TEST_CACHE_MUTANT_PATH"


def _stridelint(root: Path, *args: str) -> subprocess.CompletedProcess:
    """The CLI in a subprocess, importing the same stridelint as this test process."""
    python_path = [str(Path(stridelint.__file__).resolve().parents[1])]
    if os.environ.get(MUTANT_PATH_VARIABLE):
        python_path.insert(0, os.environ[MUTANT_PATH_VARIABLE])
    return subprocess.run(
        [sys.executable, "-m", "stridelint", "check", "--isolated", *args, "."],
        cwd=root, capture_output=True, text=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "NO_COLOR": "1",
             "PYTHONPATH": os.pathsep.join(python_path)},
    )  # fmt: skip


def test_the_cli_reuses_its_cache_and_no_cache_leaves_none(tmp_path):
    """A hit does not rewrite the entry (a miss replaces it with a new file); the warm run
    prints what the cold one did; `--no-cache` neither writes nor reads a cache."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "m.py").write_text(FLOAT_SUM)
    cold = _stridelint(root)
    assert cold.returncode == 1 and "SL101" in cold.stdout, cold.stderr
    entries = sorted((root / ".stridelint_cache").rglob("*.json"))
    assert len(entries) == 1, f"the cold run stored {len(entries)} entries"
    entry = entries[0]
    stamp = (entry.stat().st_ino, entry.stat().st_mtime_ns)
    warm = _stridelint(root)
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout)
    assert (entry.stat().st_ino, entry.stat().st_mtime_ns) == stamp, "the warm run rewrote the entry"

    elsewhere = tmp_path / "uncached"
    elsewhere.mkdir()
    (elsewhere / "m.py").write_text(FLOAT_SUM)
    uncached = _stridelint(elsewhere, "--no-cache")
    assert (uncached.returncode, uncached.stdout) == (cold.returncode, cold.stdout)
    assert not (elsewhere / ".stridelint_cache").exists()
