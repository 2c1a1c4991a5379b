"""`--add-noqa` silences today's findings without touching other comments."""

from tests.cli.conftest import BROADCAST_SUM

TWO = '''import torch


def f(x, n):
    e = x.expand(n, -1)
    a = (e != 0).sum()  # noqa: E501
    b = (e != 0).sum()  # keep this note
    c = (e != 0).sum()
    return a, b, c
'''


def test_add_noqa_then_check_is_clean(run):
    path = run.write("m.py", TWO)
    result = run("check", "--add-noqa", "m.py")
    assert result.returncode == 0 and "Added 3 noqa directives." in result.stderr
    lines = path.read_text().splitlines()
    assert lines[5].endswith("# noqa: E501, SL101")
    assert lines[6].endswith("# keep this note  # noqa: SL101")
    assert lines[7].endswith("(e != 0).sum()  # noqa: SL101")
    assert run("check", "m.py").returncode == 0


def test_add_noqa_twice_adds_nothing(run):
    run.write("m.py", BROADCAST_SUM)
    run("check", "--add-noqa", "m.py")
    again = run("check", "--add-noqa", "m.py")
    assert "Added 0 noqa directives." in again.stderr
