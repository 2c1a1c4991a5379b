"""How a stride read shows in a file's text: the `.stride` attribute.

A stride comparison with 0 (evidence.py, and the text screen's trigger for it) reads
`x.stride(...)` directly or through names bound from it (strides.py), so a text without
the attribute holds none; the word alone is in every Triton kernel's parameters
(`stride_xm`). Whitespace, a backslash-newline or a comment may stand after the dot. No
LibCST here: the text screen imports it before any parse.
"""

from __future__ import annotations

import re

_STRIDE_ATTRIBUTE = re.compile(r"\.(?:[ \t\f\r\n\\]|#[^\r\n]*[\r\n])*stride")


def reads_stride_attribute(text: str) -> bool:
    return _STRIDE_ATTRIBUTE.search(text) is not None
