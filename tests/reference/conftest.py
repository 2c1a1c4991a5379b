"""Run the reference kernel through Triton's interpreter when no GPU is present.

TRITON_INTERPRET is read when a kernel is decorated, so it must be set before
stridelint.reference is imported; conftest modules are imported before test modules.
"""

import importlib
import os
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"
pytest.importorskip("triton")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (runs the compiled kernel)")


BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _benchmark_script(name: str):
    """A script of benchmarks/, imported as a module (they need a GPU to run, not to import)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="module")
def tile_sweep():
    yield from _benchmark_script("tile_sweep")


@pytest.fixture(scope="module")
def reduce_bench():
    yield from _benchmark_script("reduce_bench")


@pytest.fixture(scope="module")
def placement_probe():
    yield from _benchmark_script("placement_probe")
