"""How many files the text screen keeps for a `.stride` attribute would a zero literal next to a comparison operator keep (an upper bound on what that sharper test saves). Usage: PYTHONPATH=. python zero_probe.py PATH..."""
import re, sys
from pathlib import Path
from stridelint.analysis.stride_text import reads_stride_attribute
from stridelint.prefilter import may_have_findings_text
_SEP = r"(?:[ \t\f\v\r\n()]|\\(?:\r\n|\r|\n)|#[^\r\n]*(?![^\r\n]))*"
_OP = r"(?:[=!<>]=|[<>]|\b(?:is|in|not)\b)"
_ZERO = r"(?<![\w.])0\w*"
Z = re.compile(f"{_OP}{_SEP}{_ZERO}|{_ZERO}{_SEP}{_OP}")
n = s = z = 0
for root in sys.argv[1:]:
    for p in Path(root).rglob("*.py"):
        t = p.read_text(errors="replace"); n += 1
        if reads_stride_attribute(t):
            s += 1; z += bool(Z.search(t))
print(n, "files;", s, "with .stride;", z, "of them with a zero next to a comparison")
