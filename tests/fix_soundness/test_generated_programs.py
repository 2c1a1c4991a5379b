"""A `safe` narrow-and-rescale fix never changes what a caller can observe, on thousands of
generated wrapper functions (programs.py) run before and after `fix` (harness.py): values,
dtypes, shapes and strides of results, exception types, effects on arguments and globals.

2,000 programs in CI (50 modules of 40 functions, fixed once per module); the same check on
50,000 and more: `python benchmarks/fix_soundness.py`. A program that ever failed here is
kept as a golden case under fixes/SL101 or fixes/SL102 (its minimal form), so the failure
stays pinned even where the generator would no longer draw it.
"""

from __future__ import annotations

import collections
import functools

import pytest

from tests.fix_soundness.harness import CONFIG_HELPER_MODULE, Tally, check_module
from tests.fix_soundness.programs import generate_module

MODULES = 50
FUNCTIONS = 40
CHUNK = 5  # modules per test, so a failure names a small range of seeds
CHUNKS = [range(start, start + CHUNK) for start in range(0, MODULES, CHUNK)]
# Constructs the generator must keep drawing (each broke a safe fix once).
HAZARDS = (
    "guard ifexp", "guard and", "guard or", "guard if", "guard assert", "guard elif",
    "guard while", "hook", "comprehension list", "comprehension generator",
    "comprehension shadowing", "walrus result", "walrus derived", "walrus rebind_source",
    "escape closure", "escape lambda", "escape fstring", "escape global",
    "escape of a partial result", "attribute rebound", "between: m.t_()",
    "between: m.transpose_(0, 1)", "dim rebound", "abs of a tensor", "colliding locals",
    "import math as m", "torch only under TYPE_CHECKING", "helper name imported",
    "helper name assigned", "chained comparison", "runtime dim", "literal dim", "tuple dim",
    "empty dims", "keepdim", "sum dtype", "source param", "source broadcast_tensors",
    "source expand_as", "source broadcast_to", "source none_index",
)  # fmt: skip


@functools.cache
def _modules(seeds: range):
    return [generate_module(seed, FUNCTIONS) for seed in seeds]


@pytest.mark.parametrize("seeds", CHUNKS, ids=lambda r: f"seeds{r.start}-{r.stop - 1}")
def test_safe_fixes_keep_everything_a_caller_observes(seeds: range) -> None:
    tally = Tally()
    for module in _modules(seeds):
        tally.add(check_module(module))
    assert not tally.errors, "\n".join(tally.errors)
    assert not tally.differences, "\n\n".join(d.report() for d in tally.differences[:5])
    # A run where the fixes stop applying proves nothing: most programs must be rewritten.
    rewritten = f"only {tally.rewritten}/{tally.programs} rewritten"
    assert tally.rewritten >= tally.programs // 2, rewritten
    # Both ways of narrowing must be exercised: written out, and through the helper.
    assert tally.forms["inline"] >= tally.rewritten // 5, tally.forms
    assert tally.forms["helper"] >= tally.rewritten // 10, tally.forms


def test_safe_fixes_keep_everything_with_an_imported_helper_and_short_lines() -> None:
    """The other fix style (harness.CONFIG_HELPER_MODULE): helpers imported from a module,
    rewritten expressions broken over lines at a line length of 60."""
    tally = Tally()
    for seeds in CHUNKS[:2]:
        for module in _modules(seeds):
            tally.add(check_module(module, CONFIG_HELPER_MODULE))
    assert not tally.errors, "\n".join(tally.errors)
    assert not tally.differences, "\n\n".join(d.report() for d in tally.differences[:5])
    assert tally.rewritten >= tally.programs // 2, f"only {tally.rewritten}/{tally.programs}"
    assert tally.forms["helper"] >= tally.rewritten // 2, tally.forms


def test_the_run_covers_two_thousand_programs() -> None:
    programs = sum(len(m.programs) for seeds in CHUNKS for m in _modules(seeds))
    assert programs >= 2000


def test_every_hazardous_construct_is_generated() -> None:
    counts = collections.Counter(
        feature
        for seeds in CHUNKS
        for module in _modules(seeds)
        for program in module.programs
        for feature in program.features
    )
    missing = [hazard for hazard in HAZARDS if counts[hazard] == 0]
    assert not missing, f"the generator no longer draws: {missing}"
