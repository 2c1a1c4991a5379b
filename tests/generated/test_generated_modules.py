"""Property tests of the whole tool on generated kernel-wrapper-like modules (modules.py).

For every generated module:

* `fix_text(..., unsafe=True)` returns code that compiles, that re-lints with no finding
  left whose fix would apply, with no internal error, and that a second fix leaves alone;
* executed, every function of the fixed module returns what the original returns, for the
  drawn broadcast arguments: bool and integer tensors `torch.equal` with the same dtype and
  shape; float tensors with the same dtype and shape, NaN/inf in the same places and the
  rest within TOL_K·eps·Σ|x| (semantics doc §4.2, TOL_K = 8), Σ|x| being the float64 sum
  of |x| over the logical inputs of every float sum/mean the original evaluated in the call
  (recorded with a TorchFunctionMode); Python numbers equal; or both raise the same
  exception type. Where the module has safe fixes, the safe-only output must keep float
  values bit-identical (a safe fix promises identical values);
* `lint_text(prefilter=True)` and `prefilter=False` give identical findings (also for every
  golden `fixes/**/*.before.py`, under its own settings and under scope "all").

The examples are derandomized and every property test uses one seed, so they draw the same
modules and share the (slow) lint and fix work through the caches below.
`STRIDELINT_GENERATED_EXAMPLES` raises the example count for a longer bug hunt.

Tool bugs this generator found are pinned as strict xfails at the end (minimal modules), and
the generator leaves the constructs that trigger them out of the property runs
(`modules.Options`); when a bug is fixed, its xfail turns into a failure: delete the xfail
and switch the construct on in `DEFAULT`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import warnings
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, seed, settings
from torch.overrides import TorchFunctionMode

from stridelint.config import Config, load_config
from stridelint.engine import FixOutcome, fix_text, lint_text
from stridelint.findings import Applicability
from stridelint.source import decode
from tests.generated.modules import GeneratedModule, modules

ROOT = Path(__file__).resolve().parents[2]
FIXES = ROOT / "fixes"
PATH = ROOT / "generated_module.py"  # a path for the config to judge (never written)
CONFIG = Config(root=ROOT, source=None, scope="all")
TOL_K = 8
SEED = 10776
EXAMPLES = int(os.environ.get("STRIDELINT_GENERATED_EXAMPLES", "80"))

SETTINGS = settings(
    derandomize=True,
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ---- shared, cached work -------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def lint(source: str, prefilter: bool):
    return lint_text(decode(source.encode()), CONFIG, PATH, prefilter=prefilter)


@functools.lru_cache(maxsize=None)
def fixed(source: str, unsafe: bool = True) -> FixOutcome:
    return fix_text(decode(source.encode()), CONFIG, PATH, unsafe)


def findings_key(findings) -> list[tuple]:
    return [
        (f.code, f.start, f.end, f.message, f.noqa_row, f.evidence, f.fix) for f in findings
    ]


def fixable(findings, unsafe: bool = True) -> list:
    return [f for f in findings if f.fix is not None and f.fix.applies_under(unsafe)]


# ---- running the functions -----------------------------------------------------------------


class _Magnitude(TorchFunctionMode):
    """Σ|x| (float64) over the inputs of every float sum/mean evaluated under the mode."""

    ROUNDING = frozenset({"sum", "mean", "nansum", "nanmean"})

    def __init__(self) -> None:
        super().__init__()
        self.total = 0.0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in self.ROUNDING and args and isinstance(args[0], torch.Tensor):
            if args[0].is_floating_point():
                self.total += float(args[0].detach().double().abs().sum())
        return func(*args, **kwargs)


def load(source: str, label: str) -> dict:
    namespace: dict = {"__name__": f"generated_{label}"}
    exec(compile(source, f"<{label}>", "exec"), namespace)
    return namespace


def call(namespace: dict, function: str, args: tuple, magnitude: _Magnitude | None = None):
    """(result, None) or (None, exception type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if magnitude is None:
                return namespace[function](*args), None
            with magnitude:
                return namespace[function](*args), None
        except Exception as error:  # noqa: BLE001 - an exception is a result to compare
            return None, type(error)


def assert_same(orig, new, *, magnitude: float | None, where: str) -> None:
    """`magnitude` None: float values must be identical."""
    if isinstance(orig, torch.Tensor):
        assert isinstance(new, torch.Tensor), f"{where}: {type(new).__name__}, not a tensor"
        assert new.dtype == orig.dtype, f"{where}: dtype {new.dtype} != {orig.dtype}"
        assert new.shape == orig.shape, f"{where}: shape {tuple(new.shape)} != {tuple(orig.shape)}"
        if not orig.is_floating_point():
            assert torch.equal(orig, new), f"{where}: {new} != {orig}"
            return
        a, b = orig.detach().double(), new.detach().double()
        same = (a == b) | (a.isnan() & b.isnan())
        if bool(same.all()):
            return
        assert magnitude is not None, f"{where}: a safe fix changed float values: {new} != {orig}"
        tolerance = TOL_K * torch.finfo(orig.dtype).eps * magnitude
        finite = a.isfinite() & b.isfinite()
        close = same | (finite & ((a - b).abs() <= tolerance))
        assert bool(close.all()), (
            f"{where}: {new} != {orig} beyond {TOL_K}·eps·Σ|x| = {tolerance:.3g}"
        )
    elif isinstance(orig, (tuple, list)):
        assert type(new) is type(orig) and len(new) == len(orig), f"{where}: {new!r} vs {orig!r}"
        for index, (o, n) in enumerate(zip(orig, new)):
            assert_same(o, n, magnitude=magnitude, where=f"{where}[{index}]")
    elif isinstance(orig, dict):
        assert isinstance(new, dict) and new.keys() == orig.keys(), f"{where}: keys differ"
        for key in orig:
            assert_same(orig[key], new[key], magnitude=magnitude, where=f"{where}[{key!r}]")
    elif isinstance(orig, float) and math.isnan(orig):
        assert isinstance(new, float) and math.isnan(new), f"{where}: {new!r} != nan"
    else:
        assert type(new) is type(orig) and new == orig, f"{where}: {new!r} != {orig!r}"


def assert_same_behaviour(
    module: GeneratedModule, fixed_source: str, *, exact_floats: bool
) -> None:
    original, rewritten = load(module.source, "original"), load(fixed_source, "fixed")
    for index, spec in enumerate(module.calls):
        magnitude = _Magnitude()
        orig, orig_error = call(original, spec.function, spec.arguments(), magnitude)
        new, new_error = call(rewritten, spec.function, spec.arguments())
        where = f"call {index}: {spec.function}{spec.args!r}"
        assert new_error == orig_error, f"{where}: raised {new_error}, the original {orig_error}"
        if orig_error is None:
            assert_same(orig, new, magnitude=None if exact_floats else magnitude.total, where=where)


# ---- the properties ------------------------------------------------------------------------


@seed(SEED)
@SETTINGS
@given(modules())
def test_fix_compiles_relints_clean_and_is_idempotent(module: GeneratedModule) -> None:
    outcome = fixed(module.source)
    assert not outcome.internal_errors, outcome.internal_errors
    compile(outcome.text, "<fixed>", "exec")
    left = fixable(outcome.findings)
    assert not left, f"fixable findings left after fixing: {[f.message for f in left]}"
    assert not fixable(lint(outcome.text, True).findings)
    again = fixed(outcome.text)
    assert again.fixed_count == 0 and again.text == outcome.text, "a second fix changed the code"


@seed(SEED)
@SETTINGS
@given(modules())
def test_fixed_functions_return_the_same_values(module: GeneratedModule) -> None:
    outcome = fixed(module.source)
    assert_same_behaviour(module, outcome.text, exact_floats=False)
    offered = lint(module.source, False).findings
    if any(f.fix.applicability is Applicability.SAFE for f in fixable(offered, unsafe=False)):
        safe_only = fixed(module.source, unsafe=False)
        assert_same_behaviour(module, safe_only.text, exact_floats=True)


@seed(SEED)
@SETTINGS
@given(modules())
def test_prefilter_keeps_every_finding_of_generated_modules(module: GeneratedModule) -> None:
    with_filter, without = lint(module.source, True), lint(module.source, False)
    assert findings_key(with_filter.findings) == findings_key(without.findings)
    assert with_filter.internal_errors == without.internal_errors


GOLDEN = sorted(FIXES.glob("SL*/*.before.py"))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_prefilter_keeps_every_finding_of_golden_cases(path: Path) -> None:
    settings_file = path.with_name(path.name.removesuffix(".before.py") + ".toml")
    if settings_file.exists():
        config = load_config(path.parent, explicit=settings_file)
    else:
        config = load_config(path.parent, isolated=True)
    source = decode(path.read_bytes())
    for scoped in (config, dataclasses.replace(config, scope="all")):
        with_filter = lint_text(source, scoped, path, prefilter=True)
        without = lint_text(source, scoped, path, prefilter=False)
        assert findings_key(with_filter.findings) == findings_key(without.findings)


SAMPLE: list[GeneratedModule] = []


@seed(SEED)
@SETTINGS
@given(modules())
def _collect(module: GeneratedModule) -> None:
    SAMPLE.append(module)


def test_generator_is_not_vacuous() -> None:
    """Most generated modules have a finding and an applied fix (the same modules the
    property tests see, so the lint and fix work is shared)."""
    if not SAMPLE:
        _collect()
    with_finding = sum(bool(lint(m.source, False).findings) for m in SAMPLE)
    with_fix = sum(fixed(m.source).fixed_count > 0 for m in SAMPLE)
    features = set().union(*(m.features for m in SAMPLE))
    print(
        f"\n{len(SAMPLE)} modules: {with_finding} with a finding, {with_fix} with an applied "
        f"fix, {len(features)} generator features"
    )
    assert with_finding >= 0.7 * len(SAMPLE)
    assert with_fix >= 0.5 * len(SAMPLE)
    for feature in ("src_expand", "ev_docstring", "op_sum", "partial_then_full", "if_else",
                    "for_loop", "dim_runtime", "named_mask", "keepdim",
                    "split_evidence"):  # fmt: skip
        assert feature in features, feature


# ---- tool bugs found by the generator, as minimal modules -----------------------------------


def _lint(source: str, prefilter: bool = True):
    return lint_text(decode(source.encode()), CONFIG, PATH, prefilter=prefilter)


REBIND_FROM_ITSELF = '''\
def f(x, n):
    m = x.expand(n, -1) != 0
    m = m.int()
    return m.sum()
'''


def test_rebinding_a_mask_from_itself_is_reported_without_crashing() -> None:
    """Regression: `_follow_name` followed the load in `m = m.int()` back to `m` forever
    (RecursionError, and every later SL101 finding lost). Now: a finding, no fix."""
    result = _lint(REBIND_FROM_ITSELF)
    assert not result.internal_errors, result.internal_errors
    assert [f.code for f in result.findings] == ["SL101"]


FLOAT_SCALAR_OPERAND = '''\
def weighted_count(mask, copies, weight: float):
    m = mask.expand(copies, -1)
    return ((m != 0) * weight).sum()
'''


def test_regression_sum_scaled_by_a_float_parameter_is_not_a_safe_fix() -> None:
    """Found by the generator (fixed in the tool since): `weight: float` is a Scalar to the
    analysis and the chain was taken for an integer one, so the rescaled float32 sum was
    offered as a SAFE fix; float32 sums of 6 copies and `v * 6` differ (semantics §4.4)."""
    safe = fix_text(decode(FLOAT_SCALAR_OPERAND.encode()), CONFIG, PATH, unsafe=False).text
    original, rewritten = load(FLOAT_SCALAR_OPERAND, "o"), load(safe, "f")
    args = (torch.tensor([True]), 6, 1.266722321510315)
    assert torch.equal(original["weighted_count"](*args), rewritten["weighted_count"](*args))


QUOTED_ANNOTATION = '''\
def count(mask: "Bool[Tensor, '#b n']"):
    return (mask != 0).sum()
'''


def test_regression_quoted_jaxtyping_annotation_is_evidence() -> None:
    """Found by the generator (fixed since): in the quoted (forward-reference) form the dims
    string sits inside the annotation string, so a `#` on its first dim follows a quote
    character, which `jaxtyping_evidence` did not accept."""
    assert [f.code for f in _lint(QUOTED_ANNOTATION).findings] == ["SL101"]


# Evidence the analysis reads from evaluated strings but the raw text hides: found by the
# generator when the pre-filter was a regex over the text. Fixed since: the pre-filter reads
# the interpreter's syntax tree, where strings are already evaluated and joined.
HIDDEN_EVIDENCE = {
    "escaped-docstring": 'def count(mask):\n    """Args:\n        mask: broad\\x63astable to the'
    ' output.\n    """\n    return (mask != 0).sum()\n',
    "escaped-annotation": "from __future__ import annotations\n\n\n"
    'def count(mask: Bool[Tensor, "\\x23b n"]):\n    return (mask != 0).sum()\n',
    "triple-quoted-annotation": "from __future__ import annotations\n\n\n"
    'def count(mask: Bool[Tensor, """b\n#n"""]):\n    return (mask != 0).sum()\n',
    # a backslash line continuation inside the string splits the word or precedes the `#`
    # (generator switch: `Options(split_evidence=True)`)
    "continued-docstring": 'def count(mask):\n    """Args:\n        mask: broad\\\ncastable to the'
    ' output.\n    """\n    return (mask != 0).sum()\n',
    "continued-annotation": "from __future__ import annotations\n\n\n"
    'def count(mask: Bool[Tensor, "\\\n#b n"]):\n    return (mask != 0).sum()\n',
    # a docstring made of implicitly concatenated literals: "broad" "castable"
    "concatenated-docstring": 'def count(mask):\n    ("Args:\\n"\n     "    mask: broad"'
    ' "castable to the output.")\n    return (mask != 0).sum()\n',
}


def _assert_prefilter_keeps_findings(source: str) -> None:
    compile(source, "<case>", "exec")
    without = _lint(source, False).findings
    assert [f.code for f in without] == ["SL101"]  # the evidence is real
    assert findings_key(_lint(source, True).findings) == findings_key(without)


@pytest.mark.parametrize("kind", sorted(HIDDEN_EVIDENCE))
def test_regression_prefilter_sees_hidden_evidence(kind: str) -> None:
    _assert_prefilter_keeps_findings(HIDDEN_EVIDENCE[kind])
