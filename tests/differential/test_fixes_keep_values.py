"""Differential proof of every golden fix: the fixed code computes what the original computes.

For each golden case with a `.after.py` (safe fixes) or `.unsafe.py` (all fixes), the
original (`.before.py`) and the fixed module are loaded from their files and called with the
same drawn arguments (specs.py; broadcast tensors from strategies.py). Either both raise an
exception of the same type, or their results agree, recursively through tuples, lists and
dicts:

* bool and integer tensors: same dtype and shape, and `torch.equal` (semantics §0 rule 7:
  integer sums and products of a narrowed tensor are bit-exact, even when int64 wraps);
* float tensors from a **safe** fix: same dtype and shape and identical values (NaN matching
  NaN): a safe fix promises identical values for every input (ARCHITECTURE.md, Fixes), and
  the reductions it may rescale (counts, any/all, amax/amin/max/min) are exact;
* float tensors from an **unsafe** fix: same dtype and shape, NaN and ±inf in the same places,
  and every other value within `TOL_K · eps(dtype) · Σ|x|`, where Σ|x| is the sum of the
  absolute values of the reduced input at its logical size, in float64 (`Call.magnitude`).
  This is the semantics doc's tolerance (§2.6, §4.2: TOL_K = 8): a float sum of N values in
  any order is within about N·eps·Σ|x| of exact, and the narrowed form stayed within 0.82
  eps·Σ|x| of exact in 8000 Hypothesis examples while the original's own error reached 437
  (§4.3 once saw 8.6 eps·Σ|x| between the two, on float32 of 3240 elements: should this
  bound trip, compare both forms with an exact reference before blaming the fix).
  For a product and a logsumexp `magnitude` is the analogous error scale (specs.py). Where the
  spec gives an exact float64 `reference` (products), a value that misses this bound passes
  only under the doc's other criterion (§2.6, "Recommended tolerance"): the fixed value is no
  farther from exact (rounded to the result's dtype) than the original, plus 2·eps·magnitude.
  An fp16 product can overflow to inf, or lose its digits in subnormals, in the original's
  evaluation order while the narrowed form computes it to full precision: that is the
  original's error, not the fix's. Where results fall among the subnormals, precision is
  absolute, not relative (each rounding there may be off by half the smallest subnormal), so
  the bound also allows `TOL_K` smallest subnormals: an fp16 product whose exact value lies
  between two subnormals may round to either, whichever order computed it.
* Python numbers and strings: equal.

Each (case, output) runs 1000 derandomized examples in CI (about 2 s a case on a 2-core CI
machine); `STRIDELINT_DIFFERENTIAL_EXAMPLES=N` runs N, for a longer hunt before a release.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import operator
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest
import torch
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from stridelint.transforms.helpers import helper_module_source
from tests.differential.specs import NOT_EXECUTABLE, SPECS, Call, Spec
from tests.golden.corpus import Case, cases

TOL_K = 8
EXAMPLES = int(os.environ.get("STRIDELINT_DIFFERENTIAL_EXAMPLES", "1000"))

FIXED_OUTPUTS = [
    (case, suffix)
    for case in cases()
    for suffix in (".after.py", ".unsafe.py")
    if case.file(suffix).exists()
]


class _NoLaunch:
    """Stands in for a Triton kernel: `k[grid](*args)` zero-fills the output argument."""

    def __init__(self, output: int) -> None:
        self.output = output

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            out = args[self.output]
            if isinstance(out, torch.Tensor):
                out.zero_()

        return launch


_modules: dict[Path, ModuleType] = {}


def load(path: Path, spec: Spec) -> ModuleType:
    """Import a case file under a unique module name (once), with its kernels stubbed."""
    if path not in _modules:
        name = "stridelint_difftest_" + "_".join(
            part.replace(".", "_") for part in path.parts[-2:]
        )
        if spec.helper_module is not None:
            _register_helper_module(spec.helper_module)
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
        for kernel, output in spec.kernels.items():
            setattr(module, kernel, _NoLaunch(output))
        _modules[path] = module
    return _modules[path]


def _register_helper_module(name: str) -> None:
    """Make `name` importable, holding what `stridelint helpers` prints (its parents are
    empty packages)."""
    parts = name.split(".")
    for end in range(1, len(parts) + 1):
        dotted = ".".join(parts[:end])
        if dotted not in sys.modules:
            module = ModuleType(dotted)
            module.__path__ = []  # a package, so that the next part imports from it
            if end == len(parts):
                exec(compile(helper_module_source(), name, "exec"), module.__dict__)  # noqa: S102
            sys.modules[dotted] = module


def _function(module: ModuleType, call: Call):
    """The function a call names: a module function, or `Class.method` called with a stand-in
    for the instance as its first argument."""
    return operator.attrgetter(call.function)(module)


def run(module: ModuleType, call: Call, args: tuple):
    """(result, None) or (None, exception type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _function(module, call)(*args), None
        except Exception as error:  # noqa: BLE001 - any exception is a result to compare
            return None, type(error)


class Bounds:
    """The spec's error scale and exact reference for one call, computed only when a float
    result differs (most examples need neither)."""

    def __init__(self, call: Call, args: tuple) -> None:
        self.call, self.args = call, args

    @functools.cached_property
    def magnitude(self) -> float | None:
        return self.call.magnitude(*self.args) if self.call.magnitude else None

    @functools.cached_property
    def reference(self) -> torch.Tensor | None:
        return self.call.reference(*self.args) if self.call.reference else None


def assert_same(orig, fixed, *, exact: bool, bounds: Bounds, where: str = "result") -> None:
    if isinstance(orig, torch.Tensor):
        assert isinstance(fixed, torch.Tensor), f"{where}: {type(fixed).__name__}, not a tensor"
        assert fixed.dtype == orig.dtype, f"{where}: dtype {fixed.dtype} != {orig.dtype}"
        assert fixed.shape == orig.shape, f"{where}: shape {fixed.shape} != {orig.shape}"
        if orig.is_floating_point():
            _assert_close_floats(orig, fixed, exact, bounds, where)
        else:
            assert torch.equal(orig, fixed), f"{where}: {orig} != {fixed}"
    elif isinstance(orig, (tuple, list)):
        same_kind = type(fixed) is type(orig) and len(fixed) == len(orig)
        assert same_kind, f"{where}: {fixed!r} vs {orig!r}"
        for i, (o, f) in enumerate(zip(orig, fixed)):
            assert_same(o, f, exact=exact, bounds=bounds, where=f"{where}[{i}]")
    elif isinstance(orig, dict):
        assert isinstance(fixed, dict) and fixed.keys() == orig.keys(), f"{where}: keys differ"
        for key in orig:
            at = f"{where}[{key!r}]"
            assert_same(orig[key], fixed[key], exact=exact, bounds=bounds, where=at)
    elif isinstance(orig, float) and math.isnan(orig):
        assert isinstance(fixed, float) and math.isnan(fixed), f"{where}: {fixed!r} != nan"
    else:
        assert type(fixed) is type(orig) and fixed == orig, f"{where}: {fixed!r} != {orig!r}"


def _assert_close_floats(orig, fixed, exact: bool, bounds: Bounds, where: str) -> None:
    a, b = orig.detach().double(), fixed.detach().double()
    same = (a == b) | (a.isnan() & b.isnan())
    if bool(same.all()):
        return
    if exact:
        raise AssertionError(f"{where}: a safe fix changed float values: {orig} != {fixed}")
    magnitude, reference = bounds.magnitude, bounds.reference
    assert magnitude is not None, f"{where}: float results differ; the spec needs a magnitude"
    info = torch.finfo(orig.dtype)
    eps = info.eps
    tolerance = TOL_K * (eps * magnitude + info.smallest_normal * eps)  # + TOL_K subnormals
    special = ~a.isfinite() | ~b.isfinite()
    close = same | (~special & ((a - b).abs() <= tolerance))
    if bool(close.all()):
        return
    if reference is not None:
        # The exact value rounded to the result's dtype (inf where it overflows): the best
        # either form can return.
        best = reference.to(orig.dtype).double()
        orig_error, fixed_error = _error(a, best), _error(b, best)
        if bool((close | (fixed_error <= orig_error + 2 * eps * magnitude)).all()):
            return
    worst = float((a - b).abs()[~close].max())
    raise AssertionError(
        f"{where}: |fixed - orig| = {worst:.6g} > {TOL_K}·(eps·Σ|x| + subnormal) = {tolerance:.6g}"
        f"{' (and not closer to exact)' if reference is not None else ''}: {orig} vs {fixed}"
    )


def _error(value: torch.Tensor, best: torch.Tensor) -> torch.Tensor:
    error = (value - best).abs().nan_to_num(nan=math.inf)
    return torch.where(value == best, 0.0, error)


def _outcome(error: type[Exception] | None) -> str:
    return f"raised {error.__name__}" if error else "returned"


def check(case: Case, suffix: str, spec: Spec, call: Call, args: tuple) -> None:
    before = load(case.file(".before.py"), spec)
    after = load(case.file(suffix), spec)
    orig, orig_error = run(before, call, args)
    fixed, fixed_error = run(after, call, args)
    assert fixed_error is orig_error, (
        f"{call.function}: the original {_outcome(orig_error)}, "
        f"the fixed code {_outcome(fixed_error)}"
    )
    if orig_error is not None:
        return
    assert_same(orig, fixed, exact=suffix == ".after.py", bounds=Bounds(call, args))


@pytest.mark.parametrize(
    ("case", "suffix"),
    [pytest.param(c, s, id=f"{c.id}{s.removesuffix('.py')}") for c, s in FIXED_OUTPUTS
     if c.id in SPECS],  # a fixed case without a spec fails test_every_fixed_case_has_a_spec
)  # fmt: skip
def test_fixed_code_computes_the_same_values(case: Case, suffix: str) -> None:
    spec = SPECS[case.id]
    by_name = {call.function: call for call in spec.calls}
    calls = st.one_of([st.tuples(st.just(c.function), c.arguments) for c in spec.calls])

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],  # no slow "explain" on failure
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(calls)
    def same_values(drawn: tuple[str, tuple]) -> None:
        function, args = drawn
        check(case, suffix, spec, by_name[function], args)

    same_values()


def test_every_fixed_case_has_a_spec():
    """A new fix case cannot skip the differential proof: it needs a spec or a stated reason."""
    missing = sorted(
        {c.id for c, _ in FIXED_OUTPUTS} - SPECS.keys() - NOT_EXECUTABLE.keys()
    )
    assert not missing, f"golden cases with a fix but no differential spec: {missing}"


def test_every_spec_names_a_fixed_case():
    fixed = {c.id for c, _ in FIXED_OUTPUTS}
    stale = sorted(SPECS.keys() - fixed)
    assert not stale, f"specs for cases without a fix (renamed or no longer fixed?): {stale}"


def test_specs_call_functions_that_exist():
    for case, suffix in FIXED_OUTPUTS:
        spec = SPECS.get(case.id)
        if spec is None:
            continue
        for path in (case.file(".before.py"), case.file(suffix)):
            module = load(path, spec)
            for call in spec.calls:
                try:
                    function = _function(module, call)
                except AttributeError:
                    function = None
                assert callable(function), f"{path.name} has no function {call.function}"
