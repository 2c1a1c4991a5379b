"""The layout sweeps name constants the kernel module has, so a prepared sweep still runs after
the kernel changes (benchmarks/tile_sweep.py; it needs a GPU, this check does not)."""

import importlib


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
