"""The layout of the code a fix writes: flat when it fits, else broken inside parentheses the
way a formatter breaks it, never touching the code between the fix's own pieces."""

from __future__ import annotations

from stridelint.transforms.layout import (
    Bracketed,
    Closes,
    Opens,
    Spec,
    Wrapped,
    lay_out,
)


def _fixed(text: str, specs: list[Spec], line_length: int) -> str:
    pieces, cursor = [], 0
    for start, end, content in lay_out(text, specs, line_length, "    ", "\n"):
        pieces += [text[cursor:start], content]
        cursor = end
    return "".join(pieces) + text[cursor:]


def _rescale(text: str, target: str, tail: str, parenthesized: bool = False) -> list[Spec]:
    """Specs that rescale the first `target` in `text` by `tail`."""
    start = text.index(target)
    unit = Wrapped(parenthesized, tail, tight=text[start - 1] == "(")
    return [Spec(start, start, [Opens(unit)]), Spec(start + len(target), start + len(target),
                                                   [Closes(unit)])]  # fmt: skip


def test_a_rescale_that_fits_stays_on_its_line():
    text = "def f(m):\n    return (m != 0).sum()\n"
    fixed = _fixed(text, _rescale(text, "(m != 0).sum()", " * math.prod(m_reps)"), 88)
    assert fixed == "def f(m):\n    return (m != 0).sum() * math.prod(m_reps)\n"


def test_a_long_rescale_is_broken_inside_parentheses_then_at_its_operator():
    text = "def f(m):\n    return (mask_small != 0).sum(dim=-1)\n"
    specs = _rescale(text, "(mask_small != 0).sum(dim=-1)", " * math.prod(mask_reps)")
    assert _fixed(text, specs, 60) == (
        "def f(m):\n    return (\n        (mask_small != 0).sum(dim=-1) * math.prod(mask_reps)\n"
        "    )\n"
    )
    assert _fixed(text, specs, 40) == (
        "def f(m):\n    return (\n        (mask_small != 0).sum(dim=-1)\n"
        "        * math.prod(mask_reps)\n    )\n"
    )


def test_the_users_brackets_serve_when_the_rescale_is_all_they_hold():
    text = "def f(m):\n    return int((m_small != 0).sum())\n"
    specs = _rescale(text, "(m_small != 0).sum()", " * math.prod(m_reps)")
    assert _fixed(text, specs, 50) == (
        "def f(m):\n    return int(\n        (m_small != 0).sum() * math.prod(m_reps)\n    )\n"
    )


def test_a_line_too_long_of_its_own_is_left_alone():
    long_call = "g(" + ", ".join(f"argument_{i}" for i in range(12)) + ")"
    text = f"def f(m):\n    x = {long_call}\n    return m.sum()\n"
    specs = _rescale(text, "m.sum()", " * k")
    assert _fixed(text, specs, 40) == text.replace("m.sum()", "m.sum() * k")


def test_a_trailing_pragma_comment_does_not_count():
    text = "def f(m):\n    return (m != 0).sum()  # noqa: SL101 because of a long reason here\n"
    specs = _rescale(text, "(m != 0).sum()", " * math.prod(m_reps)")
    assert _fixed(text, specs, 50) == text.replace(".sum()", ".sum() * math.prod(m_reps)")


def test_a_written_call_splits_one_argument_a_line_with_a_trailing_comma():
    text = "def f(m):\n    return x\n"
    start = text.index("x")
    call = Bracketed("_repeated_sum(", ["(lb_small / 2.0).logsumexp(dim=1)", "lb_reps[1]"], ")")
    specs = [Spec(start, start + 1, [call])]
    assert _fixed(text, specs, 50) == (
        "def f(m):\n    return _repeated_sum(\n        (lb_small / 2.0).logsumexp(dim=1),\n"
        "        lb_reps[1],\n    )\n"
    )


def test_targets_get_parentheses_only_when_broken_and_needless_breaks_are_undone():
    text = "def f(m):\n    return m\n"
    anchor = text.index("return")
    targets = Bracketed("(", ["a_very_long_name_small", "a_very_long_name_reps"], ")",
                        optional=True)  # fmt: skip
    call = Bracketed("_narrow_broadcast(", ["a_very_long_name"], ")")
    specs = [Spec(anchor, anchor, [targets, " = ", call, "\n    "])]
    flat = "    a_very_long_name_small, a_very_long_name_reps = _narrow_broadcast(a_very_long_name)"
    assert _fixed(text, specs, 120).splitlines()[1] == flat
    broken = _fixed(text, specs, 60)
    assert broken.splitlines()[1:4] == [
        "    (",
        "        a_very_long_name_small, a_very_long_name_reps",
        "    ) = _narrow_broadcast(a_very_long_name)",
    ]
