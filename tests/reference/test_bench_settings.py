"""A sweep's choice reaches the full benchmark as kernel settings: tile_sweep.py --best-overrides
writes reduce_bench.py --set arguments, which override the kernel module's settings for that run
and are recorded with its results (so that one device call can sweep, then run all rows on the
sweep's choice)."""

import types

import pytest


@pytest.fixture
def kernel_like():
    return types.SimpleNamespace(__name__="kernel_like", ROW_TILE=1024, X_EVICTION="", NUM_STAGES=None,
                                 CANDIDATES=((1, 2048, 4, 4),))


def test_set_parses_names_and_literals(reduce_bench):
    args = reduce_bench.parse_args(["--set", "ROW_TILE=2048", "--set", "X_EVICTION='evict_first'"])
    assert args.settings == {"ROW_TILE": 2048, "X_EVICTION": "evict_first"}
    assert reduce_bench.parse_args([]).settings == {}


@pytest.mark.parametrize("bad", ["row_tile=2048", "ROW_TILE", "ROW_TILE=evict_first", "ROW_TILE=(1,"])
def test_set_rejects_what_is_not_an_upper_case_name_and_a_literal(reduce_bench, bad, capsys):
    with pytest.raises(SystemExit):
        reduce_bench.parse_args(["--set", bad])
    assert "--set" in capsys.readouterr().err


def test_settings_take_values_of_their_own_type(reduce_bench, kernel_like):
    reduce_bench.apply_settings(kernel_like, {"ROW_TILE": 2048, "NUM_STAGES": 2, "X_EVICTION": "evict_first"})
    assert (kernel_like.ROW_TILE, kernel_like.NUM_STAGES, kernel_like.X_EVICTION) == (2048, 2, "evict_first")


@pytest.mark.parametrize("settings, message", [
    ({"ROW_TILES": 2048}, "no setting of that name"),
    ({"ROW_TILE": "2048"}, "expected int"),
    ({"ROW_TILE": True}, "expected int"),
    ({"ROW_TILE": None}, "expected int"),
])
def test_unknown_or_mistyped_settings_stop_the_run_before_any_is_set(reduce_bench, kernel_like, settings, message):
    with pytest.raises(SystemExit, match=message):
        reduce_bench.apply_settings(kernel_like, {"X_EVICTION": "evict_first", **settings})
    assert kernel_like.X_EVICTION == ""


def test_settings_arguments_parse_back_to_the_same_settings(reduce_bench):
    settings = {"X_EVICTION": "evict_first", "ROW_TILE": 2048, "CANDIDATES": ((1, 2048, 4, 4), (2, 4096, 8, 1))}
    words = reduce_bench.settings_arguments(settings).split()
    assert reduce_bench.parse_args(words).settings == settings
    assert reduce_bench.settings_arguments({}) == ""


def _row(case, variant, us, ok=True):
    shape, dim = case
    return {"set": "s", "shape": shape, "dim": dim, "dtype": "float16", "mask": "dense", "variant": variant,
            "us": us, "ok": ok}


ROWS_CASE, COLUMNS_CASE = ((8192, 4, 8192), 2), ((8192, 4, 8192), 0)


def _key(case):
    return ("s", case[0], case[1], "float16", "dense")


def test_the_best_variant_is_the_fastest_over_all_cases(tile_sweep):
    rows = [_row(ROWS_CASE, "default", 264), _row(ROWS_CASE, "wide", 255), _row(ROWS_CASE, "evict", 260),
            _row(COLUMNS_CASE, "default", 209), _row(COLUMNS_CASE, "evict", 205)]
    # "wide" changes only row tiles: on the columns case it runs the default's kernel.
    same_kernel = {_key(COLUMNS_CASE): {"wide": "default"}}
    name, mean = tile_sweep.best_variant(rows, same_kernel, ["default", "wide", "evict"])
    assert name == "wide"
    assert mean == pytest.approx((255 / 264) ** 0.5)


def test_a_variant_slower_on_one_case_or_failing_on_one_is_not_picked(tile_sweep):
    rows = [_row(ROWS_CASE, "default", 264), _row(ROWS_CASE, "wide", 240), _row(ROWS_CASE, "broken", 200),
            _row(COLUMNS_CASE, "default", 209), _row(COLUMNS_CASE, "wide", 215)]
    # "broken" has no timing on the columns case (it failed to compile there).
    assert tile_sweep.best_variant(rows, {}, ["default", "wide", "broken"]) is None


def test_a_variant_that_sums_wrong_is_not_picked(tile_sweep):
    rows = [_row(ROWS_CASE, "default", 264), _row(ROWS_CASE, "fast", 200, ok=False)]
    assert tile_sweep.best_variant(rows, {}, ["default", "fast"]) is None


def test_a_variant_within_the_margin_is_not_picked(tile_sweep):
    rows = [_row(ROWS_CASE, "default", 264), _row(ROWS_CASE, "same", 263)]
    assert tile_sweep.best_variant(rows, {}, ["default", "same"]) is None


def test_best_overrides_are_written_as_reduce_bench_arguments(tile_sweep, reduce_bench, tmp_path):
    rows = [_row(ROWS_CASE, "default", 264), _row(ROWS_CASE, "wide", 255)]
    variants = {"default": {}, "wide": {"ROW_TILE": 2048, "X_EVICTION": "evict_first"}}
    path = tmp_path / "best.txt"
    said = tile_sweep.write_best_overrides(path, rows, {}, variants)
    assert said.startswith("wide, 3.4% faster")
    assert reduce_bench.parse_args(path.read_text().split()).settings == variants["wide"]
    assert tile_sweep.write_best_overrides(path, rows[:1], {}, variants).startswith("none")
    assert path.read_text().split() == []
