"""One number or one row copied once per token, and the modules run on such copies.

`t.expand(token_h * token_w)` of a 0-d timestep is small as a tensor (one dim of numbers), but
a module given it (`self.time_embedder(t_expanded)`: sinusoids, then Linear layers of the
hidden size) runs once per copy and returns tokens x hidden identical rows. Run on the number
before the expand, it computes one row, which broadcasts. A copy per batch row
(`t.expand(latents.shape[0])`, `t.expand(batch_size)`) costs a few rows and is not this.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from stridelint.analysis import torch_ops
from stridelint.analysis.literals import literal_int
from stridelint.analysis.names import dotted
from stridelint.analysis.values import Broadcast, Dense, Derived, KernelHandle, Narrowed, Scalar

if TYPE_CHECKING:
    from stridelint.analysis.dataflow import FunctionFlow
    from stridelint.analysis.provenance import ExpandedDims

# Sizes that count batch rows or other per-step things (the CFG pair, heads, groups, layers):
# a copy per one of them is a handful of rows. By convention dim 0 is the batch.
_BATCH_COUNT = re.compile(
    r"(?:\w*_)?(?:b|bs|bsz|batch|batch_size|batches|n_rep|top_?k)"
    r"|(?:(?:num|n)_)?(?:kv_|key_value_|local_)?(?:heads?|groups?|layers|hidden_layers)"
    r"|\w*batch\w*|\w*bsz\w*"
)

# How the per-token values reach a module (`PerTokenCall.form`).
COPY = "copy"  # a broadcast copy: `t.expand(n)`, `e.unsqueeze(1).expand(b, n, -1)`
CONCATENATION = "concatenation"  # copies joined: `torch.cat([e[i:i+1]...expand(1, n_i, -1)...])`
FILL = "fill"  # one number filled in a copy's shape: `torch.full_like(t.expand(n), v)`
COMPUTED = "computed"  # rows computed from numbers copied per token (`Dense.copied`)


def copies_per_token(one_dim: cst.BaseExpression | None, dims: ExpandedDims | None) -> bool:
    """Whether an expand copies one number per token (`one_dim`, the size of an expand to one
    dim: `t.expand(token_h * token_w)`) or one row per token (`_repeats_rows_per_token`)."""
    if one_dim is not None:
        return counts_tokens(one_dim)
    return dims is not None and _repeats_rows_per_token(dims)


def counts_tokens(size: cst.BaseExpression) -> bool:
    """Whether the one size of `t.expand(size)` holds something other than batch counts: a
    token, frame or pixel count, a product with one of them, a length."""
    return not _counts_batch_rows(size)


def _repeats_rows_per_token(dims: ExpandedDims) -> bool:
    """Whether the expand copies whole rows per token in the (batch, tokens, features) layout
    a Linear reads: the last dim keeps the source's features, and the dim before it, inserted
    by the code, grows to a token count (`t_emb.unsqueeze(1).expand(b, n, -1)`): a module's
    rows are then one sample's vector, repeated. A copy per batch row (dim 0 of three or more)
    or along a channel or spatial dim of an image layout is not this."""
    last = len(dims.nodes) - 1
    tokens = last - 1
    if tokens < 0 or last in dims.candidates or tokens not in dims.broadcast:
        return False
    return literal_int(dims.nodes[tokens]) != -1 and counts_tokens(dims.nodes[tokens])


def repeats_numbers_per_token(dims: ExpandedDims) -> bool:
    """Whether the expand copies each number of a grid once per token (a timestep per sample
    and frame): the last dim alone grows, inserted by the code, to a size its names say counts
    tokens (`t.unsqueeze(-1).expand(b, f, seq_len // f)`). A module cannot run on the expand
    itself (its last dim is no features), but once a reshape merges that dim, each number sits
    once per token, and rows computed from them repeat (`Dense.copied`). A last dim of
    features (`mask.unsqueeze(-1).expand(b, n, hidden)`) is not this."""
    last = len(dims.nodes) - 1
    if last < 1 or dims.broadcast != {last} or last not in dims.inserted:
        return False
    return _names_tokens(dims.nodes[last])


# Words of a size's names that say it counts tokens (a sequence length, frames, patches).
_TOKEN_WORD = re.compile(r"seq|token|frame|patch|pixel|(?:^|_)len(?:gth)?(?:_|$)")


def _names_tokens(size: cst.BaseExpression) -> bool:
    """Whether a name in `size` says it counts tokens (`seq_len // f`, `num_frames * hw`)."""
    names = [size] if isinstance(size, (cst.Name, cst.Attribute)) else []
    if isinstance(size, cst.BinaryOperation):
        return _names_tokens(size.left) or _names_tokens(size.right)
    return any(
        _TOKEN_WORD.search((dotted(name) or "").rsplit(".", 1)[-1].lower()) for name in names
    )


def _counts_batch_rows(size: cst.BaseExpression) -> bool:
    if isinstance(size, cst.Integer):
        return True  # a literal: a CFG pair, a few repeats
    if isinstance(size, cst.BinaryOperation):
        return _counts_batch_rows(size.left) and _counts_batch_rows(size.right)
    if isinstance(size, (cst.Name, cst.Attribute)):
        name = (dotted(size) or "").rsplit(".", 1)[-1].lower()
        return "token" not in name and _BATCH_COUNT.fullmatch(name) is not None
    if isinstance(size, cst.Subscript):  # `x.shape[0]`, `input_shape[0]`
        return _indexes_dim_zero(size)
    if isinstance(size, cst.Call):  # `x.size(0)`, `len(xs)`
        func = size.func
        if isinstance(func, cst.Name) and func.value == "len":
            return True
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value == "size"
            and len(size.args) == 1
            and literal_int(size.args[0].value) == 0
        )
    return False


def _indexes_dim_zero(node: cst.Subscript) -> bool:
    value = node.value
    name = (dotted(value) or "").rsplit(".", 1)[-1].lower()
    if not name.endswith("shape"):
        return False
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return False
    return literal_int(node.slice[0].slice.value) == 0


# Methods of Python containers: they keep the tensor, they run nothing on it.
_CONTAINER_METHODS = frozenset(
    {"append", "extend", "insert", "add", "update", "put", "setdefault", "put_nowait"}
)


_TENSORS = (Broadcast, Dense, Derived, Narrowed, Scalar)


def runs_a_held_module(flow: FunctionFlow, call: cst.Call) -> bool:
    """Whether `call` runs a module the code holds: a submodule (`self.time_embedder`,
    `model.time_embedder`) or one picked from a container by name
    (`self.fm_modules["timestep_embedder"]`). Not a kernel launch (`k[grid](...)`, read
    through the strides it is given), a torch function, a method of the code's own classes
    (the analysis follows the call into it, where a method may read only the tensor's size,
    like a positional table's `self.extend_pe(x)`), a tensor method (the op tables'
    business), an in-place write or a container's method."""
    func = call.func
    if flow.facts.imports.resolve(func) is not None:
        return False
    if isinstance(func, cst.Subscript):  # a string key picks a module
        key = func.slice[0].slice if len(func.slice) == 1 else None
        return (
            isinstance(key, cst.Index)
            and isinstance(key.value, cst.SimpleString)
            and not isinstance(flow.value_of(func), KernelHandle)
        )
    if not isinstance(func, cst.Attribute) or isinstance(flow.value_of(func.value), _TENSORS):
        return False
    name = func.attr.value
    return not (
        flow.facts.classes.names_a_method(name)
        or name in torch_ops.METHODS
        or name in _CONTAINER_METHODS
        or name.endswith("_")
    )
