"""Differential tests of the SL201/SL301 fixes: the golden `before` and fixed modules, run.

TRITON_INTERPRET is read when a kernel is decorated, so it is set here, before the golden
modules (which define Triton kernels) are imported; conftest modules load first.
"""

import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("hypothesis")
if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"
pytest.importorskip("triton")
