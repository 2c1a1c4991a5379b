"""The matching and scoring logic of benchmarks/real_corpus.py, on tiny hand-made inputs.

No download and no linting: the script is imported from its path and only its pure functions
are exercised."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "real_corpus.py"


@pytest.fixture(scope="module")
def rc():
    spec = importlib.util.spec_from_file_location("stridelint_real_corpus", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


SOURCE = """\
import torch

def top(mask, n):
    m = mask.expand(n, -1)
    return (m != 0).sum()


class Wrapper:
    @staticmethod
    def launch(mask,
               n):
        def inner(t):
            return t.float()
        return inner(mask.expand(n, -1))

    def hook(self, args):
        return args["Mask"].sum()
"""


def case(rc, **kw):
    base = dict(id="c", library="lib", version="1", path="a.py", function="top", line=5,
                family="expand-then-reduce", expected="positive", in_wrapper=False)  # fmt: skip
    base.update(kw)
    return rc.Case(**base)


def finding(rc, row, end_row=None, code="SL101", path="a.py", function="top"):
    return rc.Finding(path, row, row if end_row is None else end_row, code, function)


def test_function_spans_name_nested_defs_and_methods(rc):
    spans = rc.function_spans(SOURCE)
    assert rc.function_at(spans, 5) == "top"
    assert rc.function_at(spans, 1) is None  # module level
    assert rc.function_at(spans, 8) is None  # class body, no def
    assert rc.function_at(spans, 9) == "Wrapper.launch"  # the decorator line belongs to the def
    assert rc.function_at(spans, 11) == "Wrapper.launch"  # continuation of the signature
    assert rc.function_at(spans, 13) == "Wrapper.launch.inner"  # innermost wins
    assert rc.function_at(spans, 14) == "Wrapper.launch"
    assert rc.function_at(spans, 17) == "Wrapper.hook"


def test_window_is_inclusive_and_symmetric(rc):
    # One-line findings: |row - line| <= window.
    c = case(rc, line=10)
    for row in (7, 8, 10, 12, 13):
        assert rc.case_matches(c, finding(rc, row)), row
    for row in (6, 14, 30):
        assert not rc.case_matches(c, finding(rc, row)), row
    assert rc.case_matches(c, finding(rc, 6), window=4)
    assert not rc.case_matches(c, finding(rc, 9), window=0)
    assert rc.case_matches(c, finding(rc, 10), window=0)


def test_a_multiline_finding_matches_every_line_it_spans(rc):
    c = case(rc, line=20)
    assert rc.case_matches(c, finding(rc, 12, end_row=22))  # row far away, the span covers the line
    assert rc.case_matches(c, finding(rc, 12, end_row=17))  # the span ends 3 lines before it
    assert not rc.case_matches(c, finding(rc, 12, end_row=16))  # ... 4 lines before it
    assert rc.case_matches(c, finding(rc, 23, end_row=30))  # the span starts 3 lines after it
    assert not rc.case_matches(c, finding(rc, 24, end_row=30))
    # An end row before the row (a malformed span) counts as the row alone.
    assert not rc.case_matches(c, finding(rc, 12, end_row=3))


def test_function_must_be_the_recorded_one(rc):
    c = case(rc, line=5, function="top")
    assert not rc.case_matches(c, finding(rc, 5, function="other"))
    assert not rc.case_matches(c, finding(rc, 5, function=None))  # module level
    method = case(rc, line=14, function="Wrapper.launch")
    assert rc.case_matches(method, finding(rc, 14, function="Wrapper.launch"))
    assert not rc.case_matches(method, finding(rc, 13, function="Wrapper.launch.inner"))
    # A bare recorded name matches the last component of a dotted one, not the reverse.
    assert rc.case_matches(
        case(rc, line=17, function="hook"), finding(rc, 17, function="Wrapper.hook")
    )
    assert not rc.case_matches(
        case(rc, line=17, function="Other.hook"), finding(rc, 17, function="Wrapper.hook")
    )


def test_path_and_syntax_errors(rc):
    c = case(rc)
    assert not rc.case_matches(c, finding(rc, 5, path="b.py"))
    assert not rc.case_matches(c, finding(rc, 5, code="SL900"))
    for code in ("SL101", "SL102", "SL201", "SL301", "SL401"):
        assert rc.case_matches(c, finding(rc, 5, code=code))


def test_attach_functions_reads_the_source_of_each_file(rc):
    raw = [rc.Finding("a.py", 5, 5, "SL101"), rc.Finding("a.py", 13, 13, "SL201"),
           rc.Finding("gone.py", 3, 3, "SL201"), rc.Finding("bad.py", 1, 1, "SL900")]  # fmt: skip
    out = rc.attach_functions(raw, {"a.py": SOURCE, "bad.py": "def (:\n"})
    assert [f.function for f in out] == ["top", "Wrapper.launch.inner", None, None]
    assert [(f.path, f.row, f.code) for f in out] == [(f.path, f.row, f.code) for f in raw]


def test_score_counts_and_rates(rc):
    cases = [
        case(rc, id="p1", line=5, function="top", in_wrapper=False),  # found
        case(rc, id="p2", line=13, function="Wrapper.launch.inner", in_wrapper=True),  # found
        case(rc, id="p3", line=17, function="Wrapper.hook", in_wrapper=True),  # missed
        case(rc, id="p4", line=14, function="Wrapper.launch", copy_kept=True),  # missed
        case(rc, id="n1", line=4, function="top", expected="negative"),  # flagged (window)
        case(rc, id="n2", line=14, function="Wrapper.launch", expected="negative"),  # clean
        case(rc, id="n3", path="b.py", expected="negative"),  # clean: no finding in b.py
    ]
    raw = [rc.Finding("a.py", 5, 5, "SL101"), rc.Finding("a.py", 13, 13, "SL201"),
           rc.Finding("a.py", 13, 13, "SL301"), rc.Finding("a.py", 40, 40, "SL102")]  # fmt: skip
    s = rc.score(cases, rc.attach_functions(raw, {"a.py": SOURCE}))
    found = {r.case.id: (r.found, r.codes) for r in s.results}
    assert found == {
        "p1": (True, ("SL101",)),
        "p2": (True, ("SL201", "SL301")),
        "p3": (False, ()),
        "p4": (False, ()),
        "n1": (True, ("SL101",)),
        "n2": (False, ()),
        "n3": (False, ()),
    }
    assert (s.tp, s.fn, s.fp, s.tn) == (2, 2, 1, 2)
    assert s.recall() == pytest.approx(0.5)
    assert s.recall(True) == pytest.approx(0.5)  # p2 of p2, p3
    assert s.recall(False) == pytest.approx(0.5)  # p1 of p1, p4
    assert s.recall(kept=False) == pytest.approx(2 / 3)  # p4 left out
    assert s.negatives_clean() == pytest.approx(2 / 3)
    assert s.precision() == pytest.approx(2 / 3)
    m = s.summary()
    assert (m["positives"], m["negatives"], m["positives_in_wrappers"], m["tp_in_wrappers"]) == (
        4,
        3,
        2,
        1,
    )
    assert (m["positives_not_kept_copies"], m["tp_not_kept_copies"]) == (3, 2)


def test_empty_inputs_give_no_rates(rc):
    s = rc.score([], [])
    assert (s.recall(), s.negatives_clean(), s.precision()) == (None, None, None)
    only_negatives = rc.score([case(rc, expected="negative")], [])
    assert only_negatives.recall() is None and only_negatives.precision() is None
    assert only_negatives.negatives_clean() == 1.0


def test_one_dim_positives_are_scored_apart_from_the_headline(rc):
    small = rc.Case(id="s", library="lib", version="1", path="m.py", function="f", line=3,
                    family="expand-then-copy", expected="positive", in_wrapper=True, small=True)
    big = rc.Case(id="b", library="lib", version="1", path="m.py", function="f", line=9,
                  family="expand-then-copy", expected="positive", in_wrapper=True)
    score = rc.Score([rc.CaseResult(small, False, ()), rc.CaseResult(big, True, ("SL302",))])
    summary = score.summary()
    assert summary["recall"] == 1.0  # the headline leaves the one-dim positive out
    assert summary["recall_with_small"] == 0.5
    assert (summary["tp_small"], summary["positives_small"]) == (0, 1)
