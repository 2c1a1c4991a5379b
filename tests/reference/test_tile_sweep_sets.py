"""The layout sweeps name constants the kernel module has, so a prepared sweep still runs after
the kernel changes (benchmarks/tile_sweep.py; it needs a GPU, this check does not)."""

import importlib

import pytest


def test_every_case_set_has_its_variants(tile_sweep):
    assert set(tile_sweep.CASE_SETS) <= set(tile_sweep.VARIANT_SETS)


def test_every_override_names_a_setting_of_the_kernel_module_with_a_value_of_its_type(tile_sweep):
    """Also what reduce_bench.py --set checks, so a variant --best-overrides picks is accepted there."""
    reduce_module = importlib.import_module("stridelint.reference.reduce")
    wrong = {
        (set_name, variant, key)
        for set_name, variants in tile_sweep.VARIANT_SETS.items()
        for variant, overrides in variants.items()
        for key, value in overrides.items()
        if not hasattr(reduce_module, key)
        or getattr(reduce_module, key) is not None and type(value) is not type(getattr(reduce_module, key))
    }
    assert not wrong


def test_tile_combinations_take_at_most_one_tile_a_family(tile_sweep):
    families = ({"a": {"A": 1}, "b": {"A": 2}}, {"c": {"C": 3}})
    assert tile_sweep.tile_combinations(families) == {
        "a": {"A": 1}, "b": {"A": 2}, "c": {"C": 3}, "a+c": {"A": 1, "C": 3}, "b+c": {"A": 2, "C": 3}}


@pytest.mark.parametrize("case_set", ["s27", "s28"])
def test_each_case_runs_under_a_combination_the_plan_of_its_one_applicable_tile(tile_sweep, reduce_bench, case_set):
    """What lets --best-overrides judge a combination by timings it never took: on each case, the
    combination plans as the default or as exactly the one of its tiles whose family applies."""
    import torch

    reduce_module = importlib.import_module("stridelint.reference.reduce")
    singles = {name: overrides for family in tile_sweep.TILE_FAMILIES for name, overrides in family.items()}
    combinations = tile_sweep.tile_combinations(tile_sweep.TILE_FAMILIES)
    assert len(combinations) == 7 * 4 * 2 - 1
    assert set(combinations) <= set(tile_sweep.VARIANT_SETS[case_set])
    for shape, dim, dtype_name, mask_kind in tile_sweep.CASE_SETS[case_set]:
        x, mask, _ = reduce_bench.make_inputs(torch, shape, getattr(torch, dtype_name), mask_kind, "meta")
        mask = None if mask is None else mask.expand(x.shape)

        def plan(overrides):
            with tile_sweep.coverage.overridden(reduce_module, overrides):
                return reduce_module._plan(x, dim, mask)

        default, plans = plan({}), {name: plan(overrides) for name, overrides in singles.items()}
        for name, overrides in combinations.items():
            changed = {plans[single] for single in name.split("+") if plans[single] != default}
            assert len(changed) <= 1, (shape, dim, mask_kind, name)
            assert plan(overrides) == (changed.pop() if changed else default), (shape, dim, mask_kind, name)
