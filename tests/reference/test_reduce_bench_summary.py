"""reduce_bench's summary of earlier runs says how L2 was emptied before each timed call, and
will not put runs timed under different flushes into one table (their times differ by the
flush's write-back, about 10 µs a row: docs/kernel-benchmarks.md, session 20), nor runs made with
different kernel settings (``--set``), nor runs timed on different cards."""

import json

import pytest


def _run(tmp_path, name, flush=None, settings=None, card=None):
    row = {"shape": [2, 4, 32], "dim": 0, "dtype": "fp16", "mask": "bcast_n", "bytes": 1000,
           "max_error": 0.0, "correct": True, "tune_s": 0.1, "plan": "64x64 w16 u2 s1",
           "kernel_s": 1e-6, "kernel_bytes_per_s": 1e9, "fraction_of_copy": 0.5}
    result = {"device": "test", "torch": "x", "triton": "y", "copy_bytes_per_s": 2e9,
              "reduce": [row], "hook": []}
    if flush is not None:
        result["flush"] = flush
    if settings is not None:
        result["settings"] = settings
    if card is not None:
        result["card"] = card
    path = tmp_path / name
    path.write_text(json.dumps(result))
    return path


def test_summary_names_the_flush(reduce_bench, tmp_path, capsys):
    reduce_bench.summarize([_run(tmp_path, "a.json", "clean"), _run(tmp_path, "b.json", "clean")])
    out = capsys.readouterr().out
    assert "L2 flush: clean" in out
    assert out.count("| 2x4x32 | 0 | fp16 | bcast_n |") == 2


def test_runs_without_a_flush_were_timed_with_triton_s_zeroing(reduce_bench, tmp_path, capsys):
    reduce_bench.summarize([_run(tmp_path, "old.json")])
    assert "L2 flush: zero" in capsys.readouterr().out


def test_runs_under_different_flushes_are_not_summarized_together(reduce_bench, tmp_path):
    with pytest.raises(SystemExit, match="clean, zero"):
        reduce_bench.summarize([_run(tmp_path, "a.json", "clean"), _run(tmp_path, "old.json")])


def test_the_flush_is_an_option_defaulting_to_clean(reduce_bench):
    assert reduce_bench.parse_args([]).flush == "clean"
    assert reduce_bench.parse_args(["--flush", "zero"]).flush == "zero"
    with pytest.raises(SystemExit):
        reduce_bench.parse_args(["--flush", "none"])


def test_summary_names_the_kernel_settings_a_run_overrode(reduce_bench, tmp_path, capsys):
    reduce_bench.summarize([_run(tmp_path, "a.json", "clean", {"ROW_TILE": 2048}),
                            _run(tmp_path, "b.json", "clean", {"ROW_TILE": 2048})])
    assert "kernel settings overridden: --set ROW_TILE=2048" in capsys.readouterr().out


def test_runs_with_different_kernel_settings_are_not_summarized_together(reduce_bench, tmp_path, capsys):
    with pytest.raises(SystemExit, match="set the kernel's settings differently"):
        reduce_bench.summarize([_run(tmp_path, "a.json", "clean", {"ROW_TILE": 2048}),
                                _run(tmp_path, "old.json", "clean")])
    reduce_bench.summarize([_run(tmp_path, "c.json", "clean", {}), _run(tmp_path, "old.json", "clean")])
    assert "overridden" not in capsys.readouterr().out


def test_runs_timed_on_different_cards_are_not_summarized_together(reduce_bench, tmp_path, capsys):
    with pytest.raises(SystemExit, match="different cards \\(GPU-a, GPU-b\\)"):
        reduce_bench.summarize([_run(tmp_path, "a.json", "clean", card="GPU-a"),
                                _run(tmp_path, "b.json", "clean", card="GPU-b")])
    reduce_bench.summarize([_run(tmp_path, "c.json", "clean", card="GPU-a"), _run(tmp_path, "old.json", "clean")])
    assert "device: test (GPU-a) |" in capsys.readouterr().out
