"""A sweep's pick is judged only by its cases: benchmarks/sweep_coverage.py names the variants that
change a tile no case times, and tile_sweep.py never picks them (on meta tensors: no GPU)."""

import importlib

import pytest

torch = pytest.importorskip("torch")

COLUMN_CASE = ((8192, 4, 8192), 1, "float16", "dense")
X_EVICT_FIRST = {"X_EVICTION": "evict_first"}
ROW_1X2048 = {"ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 1}


@pytest.fixture(scope="module")
def coverage(tile_sweep):
    return tile_sweep.coverage


@pytest.fixture(scope="module")
def reduce_module():
    return importlib.import_module("stridelint.reference.reduce")


def test_the_benchmark_rows_are_the_full_runs_72(coverage):
    rows = coverage.benchmark_rows()
    assert len(rows) == len(set(rows)) == 72
    assert ((65536, 4, 8192), 0, "bfloat16", "bcast_m") in rows


def test_a_knob_of_every_tile_is_unjudged_where_the_cases_lack_a_tile_it_changes(coverage, reduce_module, tile_sweep):
    """Session 28's miss: x evict_first tied on every s27 case and was 19% slower on the column tiles."""
    tiles = coverage.unjudged_tiles(reduce_module, torch, X_EVICT_FIRST, tile_sweep.CASE_SETS["s27"],
                                    coverage.benchmark_rows())
    assert COLUMN_CASE in tiles["2048x1 w4 u1 whole"]
    assert all(case not in rows for case in tile_sweep.CASE_SETS["s27"] for rows in tiles.values())


def test_a_case_of_the_tile_judges_it(coverage, reduce_module, tile_sweep):
    tiles = coverage.unjudged_tiles(reduce_module, torch, X_EVICT_FIRST, [*tile_sweep.CASE_SETS["s27"], COLUMN_CASE],
                                    coverage.benchmark_rows())
    assert "2048x1 w4 u1 whole" not in tiles
    assert tiles  # the split and 1024 x 1 tiles still have no case


def test_a_row_tile_and_the_default_are_judged_by_s27(coverage, reduce_module, tile_sweep):
    variants = {"default": {}, "row_1x2048_w8_u1": ROW_1X2048, "x_evict_first": X_EVICT_FIRST}
    reasons = coverage.unjudged_variants(reduce_module, torch, variants, tile_sweep.CASE_SETS["s27"])
    assert set(reasons) == {"x_evict_first"}
    assert "2048x1 w4 u1 whole" in reasons["x_evict_first"]


def test_the_next_sweep_judges_every_one_of_its_variants(coverage, reduce_module, tile_sweep):
    """s28 has a case of each tile the 72 rows use, so --best-overrides may pick any of its variants."""
    assert coverage.unjudged_variants(reduce_module, torch, tile_sweep.VARIANT_SETS["s28"],
                                      tile_sweep.CASE_SETS["s28"]) == {}


def test_settings_are_restored_after_a_check(coverage, reduce_module, tile_sweep):
    before = reduce_module.X_EVICTION
    coverage.unjudged_tiles(reduce_module, torch, X_EVICT_FIRST, tile_sweep.CASE_SETS["s27"][:1],
                            tile_sweep.CASE_SETS["s27"][:1])
    assert reduce_module.X_EVICTION == before


def _row(variant, us):
    return {"set": "s", "shape": (8192, 4, 8192), "dim": 2, "dtype": "float16", "mask": "dense",
            "variant": variant, "us": us, "ok": True}


def test_an_unjudged_variant_is_never_picked_and_is_named_where_it_would_lead(tile_sweep, tmp_path):
    rows = [_row("default", 264), _row("evict", 250), _row("wide", 255)]
    variants = {"default": {}, "evict": X_EVICT_FIRST, "wide": ROW_1X2048}
    path = tmp_path / "best.txt"
    said = tile_sweep.write_best_overrides(path, rows, {}, variants, {"evict": "changes tiles that no case times: x"})
    assert said.startswith("wide, ")
    assert "evict would lead (5.3% faster) but is not picked: it changes tiles that no case times: x" in said
    assert "X_EVICTION" not in path.read_text()
    assert tile_sweep.best_variant(rows, {}, variants, {"evict": "", "wide": ""}) is None
