"""The count helper the narrow-and-rescale fix writes for bool counts (`count_true`): the
same value, dtype, shape and device as the sum it replaces, on both of its paths, and the
int32 path's temporaries within a quarter of the tensor's bytes.

The int32 path runs off the CPU; here it is forced by rendering the helper without its CPU
branch (CUDA: docs/kernel-benchmarks.md, "Session 8").
"""

import pytest
import torch

from stridelint.reference.measure import peak_memory
from stridelint.transforms.helpers import helper_module_source

_CPU_BRANCH = 't.device.type == "cpu" or '


def _helper(on_cpu_path: bool):
    source = helper_module_source()
    if not on_cpu_path:
        assert _CPU_BRANCH in source
        source = source.replace(_CPU_BRANCH, "")
    namespace: dict = {}
    exec(compile(source, "helpers", "exec"), namespace)  # noqa: S102
    return namespace["count_true"]


def _bool_tensors():
    generator = torch.Generator().manual_seed(0)
    dense = torch.rand(5, 17, 3, generator=generator) > 0.4
    yield dense
    yield dense.permute(2, 0, 1)
    yield (torch.rand(5, 1, 3, generator=generator) > 0.5).expand(5, 17, 3)
    yield torch.zeros(4, 0, 2, dtype=torch.bool)
    yield torch.tensor(True)
    yield torch.ones(2, 40, dtype=torch.bool)[:, ::3]


DIMS = [0, 1, -1, (0, 2), [2, 0], (), [], None, (-3,)]


@pytest.mark.parametrize("on_cpu_path", [True, False], ids=["count_nonzero", "int32_parts"])
def test_counts_as_sum_does(on_cpu_path):
    count_true = _helper(on_cpu_path)
    for t in _bool_tensors():
        expected, counted = t.sum(), count_true(t)
        assert counted.dtype == expected.dtype and counted.shape == expected.shape
        assert counted.device == expected.device and torch.equal(counted, expected)


@pytest.mark.parametrize("on_cpu_path", [True, False], ids=["count_nonzero", "int32_parts"])
def test_rows_count_the_rows_that_hold_a_true(on_cpu_path):
    count_true = _helper(on_cpu_path)
    for t in _bool_tensors():
        for dim in DIMS if t.dim() == 3 else (None, (), 0, -1):
            try:
                expected = t.sum(dim=dim).count_nonzero()
            except (IndexError, RuntimeError) as error:
                with pytest.raises(type(error)):
                    count_true(t, dim, rows=True)
                continue
            counted = count_true(t, dim, rows=True)
            assert counted.dtype == expected.dtype and counted.shape == expected.shape
            assert torch.equal(counted, expected), (t.shape, dim)


def test_an_out_of_range_dim_raises_as_sum_does():
    count_true = _helper(on_cpu_path=True)
    t = torch.ones(2, 3, dtype=torch.bool)
    for dim in (2, -3, (0, 2)):
        with pytest.raises(IndexError):
            t.sum(dim=dim)
        with pytest.raises(IndexError):
            count_true(t, dim, rows=True)


def test_int32_parts_hold_a_quarter_of_the_tensor():
    """Sixteenths copied to int32 (4 bytes an element): a quarter of a bool tensor's bytes,
    where its sum would copy all of it to int64 (8x)."""
    count_true = _helper(on_cpu_path=False)
    t = torch.rand(4096, 64, generator=torch.Generator().manual_seed(1)) > 0.5
    counted, peak = peak_memory(lambda: count_true(t), "cpu")
    assert torch.equal(counted, t.sum())
    assert peak <= 0.25 * t.numel() + 1024, peak
    assert peak_memory(lambda: t.sum(), "cpu")[1] >= 8 * t.numel()
