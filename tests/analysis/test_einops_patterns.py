"""einops patterns: which output axes are new (what `repeat` expands) and whether an output
group merges axes (when the last reshape may copy)."""

from __future__ import annotations

import pytest

from stridelint.analysis import einops_patterns


@pytest.mark.parametrize(
    ("pattern", "new", "merges"),
    [
        ("b d -> b r d", {"r"}, False),
        ("s -> b 1 1 s", {"b"}, False),
        ("z -> z d", {"d"}, False),
        ("b d -> b 2 d", {"2"}, False),
        ("b s h d -> b s (h g) d", {"g"}, True),
        ("... d -> ... 1 (2 d)", {"2"}, True),
        ("(b h) d -> b h d", set(), False),
        ("b h d -> b (h d)", set(), True),
        ("b h d -> b (h 1) d", set(), False),  # a size-1 axis adds nothing
        ("b ... -> b (...)", set(), True),
        ("b d -> b () d", set(), False),
    ],
)
def test_new_axes_and_merged_output_groups(pattern, new, merges):
    parsed = einops_patterns.parse(pattern)
    assert parsed is not None
    assert parsed.new_axes == new and parsed.merges is merges


@pytest.mark.parametrize("pattern", ["b d", "b (d -> b d", "b d) -> b d", "b d -> b ((d))",
                                     "b d -> b d -> d", "b-d -> b d"])
def test_a_pattern_einops_would_reject_is_not_read(pattern):
    assert einops_patterns.parse(pattern) is None
