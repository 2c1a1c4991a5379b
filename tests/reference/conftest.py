"""Run the reference kernel through Triton's interpreter when no GPU is present.

TRITON_INTERPRET is read when a kernel is decorated, so it must be set before
stridelint.reference is imported; conftest modules are imported before test modules.
"""

import os

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"
pytest.importorskip("triton")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (runs the compiled kernel)")
