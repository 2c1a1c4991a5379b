"""memo: work after an early return of a value cached on `self` runs once per cache key."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from stridelint.analysis import memo


def _function_and_last_statement(code: str) -> tuple[cst.FunctionDef, cst.CSTNode]:
    (func,) = [s for s in cst.parse_module(textwrap.dedent(code)).body if isinstance(s, cst.FunctionDef)]
    return func, func.body.body[-1]


@pytest.mark.parametrize(
    ("guard", "memoized"),
    [("if self._key == key:\n        return self._value", True),
     ("if self._key == key: return self._value", True),  # a one-line suite
     ("if self._key == key:\n        log()\n        return self._value", True),
     ("if self._key == key:\n        return value", False),  # not kept on self
     ("if self._key == key:\n        return other._value", False),  # not the receiver's
     ("if self._key == key:\n        pass", False),
     ("for k in keys:\n        return self._value", False)],  # not an `if`
)  # fmt: skip
def test_an_early_return_of_a_cached_attribute_marks_what_follows(guard, memoized):
    func, last = _function_and_last_statement(
        f"def forward(self, key, value, other, keys):\n    {guard}\n"
        "    self._key, self._value = key, work(key)\n    return self._value\n"
    )
    assert memo.returns_a_cached_value_before(func, last) is memoized


@pytest.mark.parametrize(
    ("fill", "memoized"),
    [("self._value = table", True), ("self._key, self._value = key, table", True),
     ("self.other = table", False),  # the returned attribute is never stored: no cache
     ("value = table", False)],
)  # fmt: skip
def test_a_cache_is_an_attribute_the_function_returns_early_and_stores_later(fill, memoized):
    func, last = _function_and_last_statement(
        "def forward(self, key):\n    if self._key == key:\n        return self._value\n"
        f"    table = work(key)\n    {fill}\n    return table\n"
    )
    assert memo.returns_a_cached_value_before(func, last) is memoized


def test_the_statement_before_the_cache_check_is_not_memoized():
    func, _ = _function_and_last_statement(
        "def forward(self, key):\n    table = work(key)\n    if self._key == key:\n"
        "        return self._value\n    self._value = table\n    return table\n"
    )
    assert not memo.returns_a_cached_value_before(func, func.body.body[0])


def test_a_function_without_parameters_is_not_memoized():
    func, last = _function_and_last_statement("def build():\n    if flag:\n        return x.y\n    return 1\n")
    assert not memo.returns_a_cached_value_before(func, last)
