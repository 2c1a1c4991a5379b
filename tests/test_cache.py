"""The result cache returns what a fresh check would, and never trusts a bad entry."""

from __future__ import annotations

from pathlib import Path

from stridelint.cache import ResultCache
from stridelint.config import Config
from stridelint.engine import FixMode, check_file

SOURCE = "import torch\n\n\ndef f(x, n):\n    e = x.expand(n, -1)\n    return (e * 0.5).sum()\n"


def _cache(tmp_path: Path, config: Config) -> ResultCache:
    return ResultCache(tmp_path / "cache", config.fingerprint())


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").rglob("*.json"))


def test_warm_run_returns_the_cold_findings_fixes_included(tmp_path):
    config = Config(root=tmp_path, source=None)
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    cold = check_file(path, config, FixMode(), _cache(tmp_path, config))
    assert len(_entries(tmp_path)) == 1
    warm = check_file(path, config, FixMode(), _cache(tmp_path, config))
    assert warm.findings == cold.findings and cold.findings[0].fix is not None


def test_corrupt_and_foreign_entries_are_ignored(tmp_path):
    config = Config(root=tmp_path, source=None)
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    expected = check_file(path, config, FixMode(), None).findings
    check_file(path, config, FixMode(), _cache(tmp_path, config))
    [entry] = _entries(tmp_path)
    for garbage in ("{not json", '{"format": 1, "key": "other", "findings": []}',
                    entry.read_text().replace('"code":"SL101"', '"code":101')):
        entry.write_text(garbage)
        assert check_file(path, config, FixMode(), _cache(tmp_path, config)).findings == expected


def test_settings_and_content_changes_miss_the_cache(tmp_path):
    config = Config(root=tmp_path, source=None)
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    check_file(path, config, FixMode(), _cache(tmp_path, config))
    ignoring = config.with_overrides(ignore=("SL1",))
    assert check_file(path, ignoring, FixMode(), _cache(tmp_path, ignoring)).findings == []
    path.write_text(SOURCE.replace("x.expand(n, -1)", "torch.zeros(n, 3)"))
    assert check_file(path, config, FixMode(), _cache(tmp_path, config)).findings == []
