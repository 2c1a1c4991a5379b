"""Loading golden modules, tensors with random layouts, and comparing results."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import torch
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FIXES = Path(__file__).resolve().parents[2] / "fixes"

# Deterministic (derandomized, no example database) and without per-example deadlines.
EXAMPLES = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

_loaded: dict[Path, ModuleType] = {}


def load(code: str, case: str, suffix: str) -> ModuleType:
    """The golden module fixes/<code>/<case>.<suffix>.py, imported from its file (Triton
    reads a kernel's source from the file)."""
    path = FIXES / code / f"{case}.{suffix}.py"
    if path not in _loaded:
        name = f"_golden_{code}_{case}_{suffix}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[path] = module
    return _loaded[path]


def fixed_variants(code: str, case: str) -> list[tuple[str, ModuleType]]:
    """The fixed outputs the corpus holds for a case: `after` (safe fixes) and `unsafe`."""
    found = [
        (suffix, load(code, case, suffix))
        for suffix in ("after", "unsafe")
        if (FIXES / code / f"{case}.{suffix}.py").exists()
    ]
    assert found, f"{code}/{case} has no fixed output"
    return found


def _values(shape: list[int], dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(shape, generator=generator) < 0.5
    if not dtype.is_floating_point:
        return torch.randint(-3, 4, shape, generator=generator, dtype=dtype)
    integral = torch.randint(-3, 4, shape, generator=generator).to(torch.float64)
    return (integral + torch.rand(shape, generator=generator, dtype=torch.float64)).to(dtype)


@st.composite
def laid_out(draw, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """A tensor of `shape` whose layout is drawn too: each dim of size > 1 may be broadcast
    (stride 0), and the storage may be a strided slice of a wider tensor."""
    seed = draw(st.integers(0, 2**31 - 1))
    broadcast = [n > 1 and draw(st.booleans()) for n in shape]
    strided = bool(shape) and draw(st.booleans())
    generator = torch.Generator().manual_seed(seed)
    base_shape = [1 if b else n for b, n in zip(broadcast, shape)]
    if strided:
        wide = base_shape[:-1] + [2 * base_shape[-1]]
        base = _values(wide, dtype, generator)[..., ::2]
    else:
        base = _values(base_shape, dtype, generator)
    return base.expand(shape)


def dense(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    return _values(list(shape), dtype, torch.Generator().manual_seed(seed)).contiguous()


FLOATS = st.sampled_from([torch.float16, torch.bfloat16, torch.float32, torch.float64])
MASK_DTYPES = st.sampled_from([torch.bool, torch.int32, torch.int64, torch.float32])


def assert_same(
    expected: torch.Tensor,
    actual: torch.Tensor,
    *,
    strides: bool,
    rtol: float = 0.0,
    atol: float = 0.0,
) -> None:
    """Equal values, dtype and shape; with `strides`, also the strides of every dim of size
    > 1 (a size-1 dim's stride is arbitrary, semantics §3.1). `rtol`, `atol`: the values may
    differ by that much instead (stated where a case passes them), never in dtype or shape."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if rtol or atol:
        torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert torch.equal(actual, expected), (expected, actual)
    if strides:
        keep = [d for d, n in enumerate(expected.shape) if n > 1]
        assert [actual.stride(d) for d in keep] == [expected.stride(d) for d in keep]


def strided_view(
    pointer: torch.Tensor, shape: tuple[int, ...], strides: tuple[int, ...]
) -> torch.Tensor:
    """What a kernel sees at `pointer` when it indexes it with these sizes and strides."""
    return torch.as_strided(pointer, shape, strides, pointer.storage_offset())


class PythonKernel:
    """Stands in for a Triton kernel in `kernel[grid](...)`: calls fn(grid, *args)."""

    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.fn(grid, *args, **kwargs)
