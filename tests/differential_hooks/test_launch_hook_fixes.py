"""Differential proof of the fixes of the launch-metadata hook cases (fixes/SL101/launch_*):
the hook of the original and of the fixed module return equal metadata for masks with any
stride-0 dims, every dim to reduce, and a None mask (exact: the results are counts), or
raise the same exception type."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

CASES = Path(__file__).resolve().parents[2] / "fixes" / "SL101"
HOOKS = {
    "launch_specialized_kernel_attribute": "masked_rows_metadata",
    "launch_kernel_in_variable_after_splats": "gather_metadata",
    "launch_helper_strides_keyword_flags": "scaled_sum_metadata",
    "launch_partial_of_kernel_table": "count_metadata",
    "launch_cached_launcher_autotuned": "norm_metadata",
}
SHAPE = (3, 4, 5)


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_hook_case_{path.stem.replace('.', '_')}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # triton.jit reads the function's module
    spec.loader.exec_module(module)
    return module


def masks(dtype: torch.dtype):
    """A dense mask, then one broadcast over every non-empty subset of dims (stride 0)."""
    generator = torch.Generator().manual_seed(7)
    yield None
    for broadcast in itertools.chain.from_iterable(
        itertools.combinations(range(3), k) for k in range(4)
    ):
        small = [1 if d in broadcast else n for d, n in enumerate(SHAPE)]
        values = torch.randint(-1, 2, small, generator=generator)
        yield values.to(dtype).expand(SHAPE)


def outcome(hook, kernel, args: dict) -> object:
    """The metadata, or the type of the exception the hook raised (`abs` of a bool mask)."""
    try:
        return hook(None, kernel, dict(args))
    except (RuntimeError, NotImplementedError, TypeError) as error:
        return type(error)


@pytest.mark.parametrize("case", sorted(HOOKS))
@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.float32])
def test_fixed_hook_returns_the_same_metadata(case: str, dtype: torch.dtype) -> None:
    before = getattr(load(CASES / f"{case}.before.py"), HOOKS[case])
    after = getattr(load(CASES / f"{case}.after.py"), HOOKS[case])
    kernel = SimpleNamespace(name="k")
    source = torch.ones(SHAPE)
    checked = 0
    for mask in masks(dtype):
        for dim in (0, 1, 2, -1):
            args = {"Src": source, "X": source, "Mask": mask, "Scale": mask, "Weight": mask, "DIM": dim}
            assert outcome(after, kernel, args) == outcome(before, kernel, args)
            checked += 1
    assert checked == 9 * 4
