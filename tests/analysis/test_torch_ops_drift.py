"""The torch facts table against real torch: every op's kind and result dtype, checked on a
stride-0 input (semantics §1.1, §1.2), so the table cannot drift from what torch does."""

from __future__ import annotations

import pytest

from stridelint.analysis import torch_ops

torch = pytest.importorskip("torch")

# Arguments an op needs beyond its receiver; `OTHER` stands for a second dense tensor.
OTHER = object()
ARGS = {
    "transpose": (0, 1), "permute": (1, 0), "unsqueeze": (0,), "narrow": (0, 0, 1),
    "view": (4, 3), "view_as": (OTHER,), "select": (0, 0), "unfold": (1, 1, 1),
    "movedim": (0, 1), "moveaxis": (0, 1), "swapaxes": (0, 1), "swapdims": (0, 1),
    "unflatten": (1, (3, 1)), "expand": (4, 3), "expand_as": (OTHER,),
    "broadcast_to": ((4, 3),), "clamp": (0.0,), "clip": (0.0,), "clamp_min": (0.0,),
    "clamp_max": (1.0,), "masked_fill": ("BOOL_OTHER", 0.0), "lerp": (OTHER, 0.5),
    "where": ("BOOL_OTHER", OTHER), "type_as": ("INT_OTHER",), "reshape": (-1,),
    "logsumexp": (0,), "norm": (),
}  # fmt: skip
INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"}


def stride0(dtype: torch.dtype) -> torch.Tensor:
    """(4, 3) with stride (0, 1): one stored row of 3."""
    return (torch.arange(3) + 1).to(dtype).unsqueeze(0).expand(4, 3)


def call_method(name: str):
    dtype = torch.int32 if name in INTEGER_ONLY else torch.float32
    if torch_ops.METHODS[name].kind == torch_ops.CAST:
        dtype = torch.float32 if name == "double" else torch.float64  # a real conversion
    t = stride0(dtype)
    other = torch.ones(4, 3, dtype=dtype)
    spelled = {OTHER: other, "BOOL_OTHER": other > 0, "INT_OTHER": other.int()}
    default = (OTHER,) if torch_ops.METHODS[name].arity == 2 else ()
    args = [spelled[a] if _spelled(a) else a for a in ARGS.get(name, default)]
    return t, getattr(t, name)(*args)


def _spelled(arg: object) -> bool:
    return arg is OTHER or arg in ("BOOL_OTHER", "INT_OTHER")


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def is_dense_copy(t: torch.Tensor, result: torch.Tensor) -> bool:
    return (
        not shares_storage(t, result)
        and 0 not in result.stride()
        and result.untyped_storage().nbytes() >= result.numel() * result.element_size()
    )


@pytest.mark.parametrize("name", sorted(torch_ops.METHODS))
def test_method_behaves_as_the_table_says(name: str) -> None:
    op = torch_ops.METHODS[name]
    if op.kind == torch_ops.DEVICE:
        t = stride0(torch.float32)
        assert getattr(t, "cpu")() is t  # a same-device move returns the tensor itself
        return
    t, result = call_method(name)
    if op.kind in (torch_ops.VIEW, torch_ops.BROADCAST):
        assert shares_storage(t, result)
        if op.kind == torch_ops.BROADCAST:
            assert 0 in result.stride()
    elif op.kind in (torch_ops.ELEMENTWISE, torch_ops.COPY):
        assert is_dense_copy(t, result)
        expected = {torch_ops.BOOL: torch.bool, torch_ops.FLOAT64: torch.float64}
        assert result.dtype == expected.get(op.result_dtype, t.dtype)
    elif op.kind == torch_ops.CAST:
        assert is_dense_copy(t, result)  # the input's dtype is never the target (below)
        assert result.dtype != t.dtype
        if op.result_dtype == torch_ops.BOOL:
            assert result.dtype == torch.bool
    elif op.kind == torch_ops.LAYOUT:
        assert is_dense_copy(t, result)  # `reshape(-1)` merges the stride-0 dim: a copy
    elif op.kind == torch_ops.REDUCTION:
        assert isinstance(result, torch.Tensor) and result.dim() == 0 or name == "logsumexp"
    else:
        pytest.fail(f"unknown kind {op.kind}")


@pytest.mark.parametrize(
    "name", sorted(n for n, op in torch_ops.FUNCTIONS.items() if op.kind == torch_ops.ELEMENTWISE)
)
def test_elementwise_function_gives_a_dense_copy(name: str) -> None:
    module, _, attribute = name.rpartition(".")
    function = getattr(eval(module, {"torch": torch}), attribute)
    t = stride0(torch.int32 if attribute in INTEGER_ONLY else torch.float32)
    extra = {"threshold": (0.5, 0.0), "clamp": (0.0,), "clip": (0.0,), "clamp_min": (0.0,),
             "clamp_max": (1.0,)}.get(attribute, ())
    if torch_ops.FUNCTIONS[name].arity == 2 and attribute not in ("where", "masked_fill"):
        extra = (torch.ones_like(t),) + extra
    elif attribute == "where":
        function, t, extra = torch.where, t > 1, (t, torch.zeros(4, 3))
    elif attribute == "masked_fill":
        extra = (torch.ones(4, 3, dtype=torch.bool), 0.0)
    if attribute == "lerp":
        extra = (torch.ones(4, 3), 0.5)
    assert is_dense_copy(t, function(t, *extra))


def test_views_keep_the_stride_0_dim_where_it_survives() -> None:
    t = stride0(torch.float32)
    assert t.transpose(0, 1).stride() == (1, 0)
    assert t.unsqueeze(0).stride()[1] == 0



@pytest.mark.parametrize("name", sorted(torch_ops.INDEX_FUNCTIONS))
def test_index_functions_make_one_dense_vector_of_positions(name: str) -> None:
    """An index grid is small because its source is one value per position: a 1-D dense
    vector as long as the count asked for, never a stride-0 view."""
    function = getattr(torch, name.split(".")[-1])
    result = function(0, 9, 10) if name.endswith("linspace") else function(10)
    assert name in torch_ops.FRESH_FUNCTIONS
    assert result.shape == (10,) and result.stride() == (1,)
    assert result.is_contiguous() and result.untyped_storage().nbytes() == 10 * result.element_size()


@pytest.mark.parametrize("name", sorted(torch_ops.CONSTANT_FILL_FUNCTIONS))
def test_constant_fills_hold_one_value_in_a_dense_tensor(name: str) -> None:
    """A padding part of a concatenation: dense, and one value at every position."""
    function = getattr(torch, name.split(".")[-1])
    fill = (1.5,) if "full" in name else ()
    shape = torch.ones(4, 3) if name.endswith("_like") else (4, 3)
    result = function(shape, *fill)
    assert name in torch_ops.FRESH_FUNCTIONS
    assert result.shape == (4, 3) and result.is_contiguous() and 0 not in result.stride()
    assert torch.unique(result).numel() == 1


@pytest.mark.parametrize("name", sorted(torch_ops.OUTER_FUNCTIONS))
def test_outer_functions_repeat_a_row_wherever_the_first_vector_repeats(name: str) -> None:
    """Equal values of the first vector give equal rows, whatever the second vector holds."""
    function = getattr(torch, name.split(".")[-1])
    first, second = torch.tensor([2.0, 3.0, 2.0, 2.0]), torch.randn(5)
    result = function(first, second)
    assert result.shape == (4, 5) and result.is_contiguous()
    assert torch.equal(result[0], result[2]) and torch.equal(result[0], result[3])
    assert not torch.equal(result[0], result[1])


@pytest.mark.parametrize("name", sorted(torch_ops.JOIN_FUNCTIONS))
def test_join_functions_write_each_input_whole_into_a_dense_output(name: str) -> None:
    """A broadcast input is copied element by element into an output at least its size."""
    function = getattr(torch, name.split(".")[-1])
    t, other = stride0(torch.float32), torch.ones(4, 3)
    result = function([t, other])
    assert 0 not in result.stride() and result.is_contiguous()
    assert result.numel() == t.numel() + other.numel()
    assert not shares_storage(t, result)


@pytest.mark.parametrize("name", sorted(torch_ops.BROADCAST_TUPLE_FUNCTIONS))
def test_broadcast_tuple_functions_return_stride_0_views_of_their_inputs(name: str) -> None:
    module, _, attribute = name.rpartition(".")
    function = getattr(eval(module, {"torch": torch}) if module != "torch" else torch, attribute)
    row, column = torch.arange(3.0), torch.arange(4.0).unsqueeze(1)
    if name == "torch.meshgrid":  # 1-D inputs, one output dim each
        b, a = function(column.squeeze(1), row, indexing="ij")
    else:
        a, b = function(row, column)
    assert a.shape == b.shape == (4, 3)
    assert a.stride() == (0, 1) and b.stride() == (1, 0)
    assert shares_storage(a, row) and shares_storage(b, column)


@pytest.mark.parametrize("name", sorted(torch_ops.CAST_METHODS | {"type_as"}))
def test_a_cast_to_the_dtype_a_tensor_has_returns_the_tensor_itself(name: str) -> None:
    """What lets the analysis drop a cast whose dtypes it knows are equal (dtypes.py)."""
    target = {"float": torch.float32, "double": torch.float64, "half": torch.float16,
              "bfloat16": torch.bfloat16, "int": torch.int32, "long": torch.int64,
              "short": torch.int16, "byte": torch.uint8, "char": torch.int8,
              "bool": torch.bool}.get(name, torch.float16)  # fmt: skip
    t = stride0(torch.float32).to(target)
    t = t[:1].expand(4, 3)  # stride 0 again after the conversion
    result = t.type_as(torch.ones(1, dtype=target)) if name == "type_as" else getattr(t, name)()
    assert result is t
    assert t.to(target) is t and t.type(target) is t


def test_functional_dropout_draws_each_element_so_it_is_not_elementwise() -> None:
    """Dropout of an expanded tensor keeps different elements in each row: moving it before
    the expand would change the values, so it is no table entry."""
    assert "torch.nn.functional.dropout" not in torch_ops.FUNCTIONS
    torch.manual_seed(0)
    rows = torch.nn.functional.dropout(torch.ones(1, 256).expand(64, 256), 0.5)
    assert 0 not in rows.stride() and not torch.equal(rows[0], rows[1])


def test_boolean_mask_indexing_gathers_only_the_selected_elements() -> None:
    """`t[mask]` of a stride-0 `t`: a new dense 1-D tensor of the selected count, never the
    logical size (semantics §1.1); a stride-0 mask selects as its logical values say."""
    t = stride0(torch.float32)
    mask = torch.tensor([True, False, True]).expand(4, 3)
    picked = t[mask]
    assert picked.shape == (8,) and picked.stride() == (1,)
    assert not shares_storage(t, picked)
    assert picked.untyped_storage().nbytes() == 8 * picked.element_size()
    assert t[mask].numel() == int(mask.sum())


@pytest.mark.parametrize(
    ("source", "shape", "view"),
    [
        ((1, 1, 5), (6, 5), True),  # merges two stride-0 dims
        ((1, 1), (-1,), True),  # flattens only stride-0 dims
        ((1, 1, 5), (2, 15), False),  # merges a stride-0 dim with a strided one
        ((2, 1, 5), (2, 15), False),
        ((2, 1, 5), (6, 5), False),  # a strided dim of size 2 with a stride-0 dim
        ((1, 5), (3, 1, 5), True),  # adds a size-1 dim
    ],
)
def test_a_reshape_copies_only_when_it_merges_a_stride_0_dim_with_a_strided_one(
    source: tuple[int, ...], shape: tuple[int, ...], view: bool
) -> None:
    """The rule `reshapes.merge_of` decides by (semantics §1.1); the expand grows each size-1
    source dim to (2, 3, 5)'s size, or (3, 5) for a 2-D source."""
    base = torch.randn(*source)
    t = base.expand(*((2, 3, 5) if len(source) == 3 else (3, 5)))
    result = t.reshape(shape)
    assert shares_storage(base, result) is view
    if not view:
        assert is_dense_copy(t, result)


def _backend_repeat(x: torch.Tensor, count: int, merge: bool) -> torch.Tensor:
    """`repeat(x, "b d -> b r d")` (or `"b d -> b (r d)"` when merge) as einops' torch backend
    runs it, by its source (einops is not a dependency): unsqueeze + expand the new axis,
    then one reshape to the output groups."""
    expanded = x.unsqueeze(1).expand(-1, count, -1)
    b, r, d = expanded.shape
    return expanded.reshape(b, r * d) if merge else expanded.reshape(b, r, d)


def test_the_steps_einops_runs_for_repeat_expand_and_copy_only_on_a_merge() -> None:
    """The torch side of `einops_patterns`: a new axis alone stays stride 0, a merged one
    is copied to the full size."""
    x = torch.randn(4, 3)
    alone = _backend_repeat(x, 5, merge=False)
    assert alone.stride() == (3, 0, 1) and shares_storage(x, alone)
    merged = _backend_repeat(x, 5, merge=True)
    assert is_dense_copy(x, merged) and merged.shape == (4, 15)


@pytest.mark.parametrize(("pattern", "view"), [("b d -> b r d", True), ("b d -> b (r d)", False)])
def test_einops_repeat_is_a_view_exactly_when_no_output_group_merges(pattern, view) -> None:
    """Against einops itself where it is installed (it is no dependency of stridelint)."""
    einops = pytest.importorskip("einops")
    from stridelint.analysis import einops_patterns

    x = torch.randn(4, 3)
    result = einops.repeat(x, pattern, r=5)
    assert shares_storage(x, result) is view
    assert (0 in result.stride()) is view
    assert einops_patterns.parse(pattern).merges is not view


@pytest.mark.parametrize(
    ("pattern", "shape", "sizes", "copied"),
    [("(b t) c -> b (t h w) c", (4, 6), {"b": 2, "h": 3, "w": 5}, True),
     ("b s k d -> b s (k h) d", (2, 4, 3, 6), {"h": 3}, True),
     ("t c -> t (h w) c", (4, 6), {"h": 3, "w": 5}, False),  # only new axes joined
     ("t c -> h (t c)", (4, 6), {"h": 3}, False),  # only the input's axes joined
     ("t c -> (h t) c", (4, 6), {"h": 3}, True)],
)  # fmt: skip
def test_einops_repeat_copies_exactly_when_a_group_joins_a_new_axis_to_an_old_one(pattern, shape, sizes, copied):
    einops = pytest.importorskip("einops")
    from stridelint.analysis import einops_patterns

    x = torch.randn(*shape)
    assert shares_storage(x, einops.repeat(x, pattern, **sizes)) is not copied
    assert (einops_patterns.merged_new_axis(einops_patterns.parse(pattern)) is not None) is copied


def _largest_allocation(fn) -> int:
    """The largest CPU allocation one op made while `fn` ran, in bytes (torch's profiler)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    return max((e.cpu_memory_usage for e in prof.key_averages() if e.key == "aten::where"), default=0)


@pytest.mark.parametrize("qualified", sorted(torch_ops.BOOL_MASK_ARGUMENTS))
def test_a_bool_mask_argument_becomes_a_full_size_float_bias_a_float_one_does_not(qualified) -> None:
    import functools
    import importlib

    module, name = qualified.rsplit(".", 1)
    call = getattr(importlib.import_module(module), name)
    keyword, position = torch_ops.BOOL_MASK_ARGUMENTS[qualified]
    b, h, t, s, d = 2, 4, 64, 64, 8
    q, k, v = torch.randn(b, h, t, d), torch.randn(b, h, s, d), torch.randn(b, h, s, d)
    keep = torch.rand(b, 1, 1, s) > 0.3
    full = b * h * t * s * 4  # fp32 bytes of the logical size

    def run(mask, by_keyword):
        if by_keyword:
            return functools.partial(call, q, k, v, **{keyword: mask})
        return functools.partial(call, *[q, k, v, mask][: position + 1])

    for by_keyword in (True, False):
        expanded = keep.expand(b, h, t, s)
        assert _largest_allocation(run(expanded, by_keyword)) >= full
        assert _largest_allocation(run(keep, by_keyword)) < full
        bias = torch.zeros(b, 1, 1, s).masked_fill(~keep, float("-inf"))
        assert _largest_allocation(run(bias.expand(b, h, t, s), by_keyword)) < full
        torch.testing.assert_close(run(expanded, by_keyword)(), run(keep, by_keyword)())


@pytest.mark.parametrize("name", sorted(torch_ops.COUNT_METHODS))
def test_a_count_of_a_boolean_selection_is_the_masks_count(name):
    """`x[mask].numel()` with a stride-0 bool mask: a Python int, the mask's count over its
    logical size, after a gather into a fresh tensor (what SL102 reports it for)."""
    x = torch.arange(24.0).reshape(2, 3, 4)
    row = torch.tensor([True, False, True])
    mask = row[None, :, None].expand(2, 3, 4)
    selected = x[mask]
    count = getattr(selected, name)()
    assert isinstance(count, int) and name in torch_ops.SCALAR_METHODS
    assert count == int(row.sum()) * 2 * 4 == int(mask.sum())
    assert not shares_storage(x, selected)


@pytest.mark.parametrize("name", sorted(torch_ops.BOOL_ONLY_MASK_METHODS))
def test_a_bool_only_mask_method_raises_on_any_other_mask_dtype(name):
    """What `dtypes.bool_masks_by_use` relies on: the method (and torch's function of the
    name, where there is one) runs with a bool mask and raises with a uint8 or float one."""
    position = torch_ops.BOOL_ONLY_MASK_METHODS[name]
    x = torch.arange(6.0).reshape(2, 3)
    extra = {"masked_fill": (0.5,), "masked_scatter": (torch.ones(2, 3),), "masked_select": ()}
    rest = extra[name.removesuffix("_")]
    keep = torch.tensor([[True, False, True], [False, True, False]])

    def arguments(mask):
        return [*rest[:position], mask, *rest[position:]]

    calls = [lambda mask: getattr(x.clone(), name)(*arguments(mask))]
    if hasattr(torch, name):
        calls.append(lambda mask: getattr(torch, name)(x.clone(), *arguments(mask)))
    for call in calls:
        call(keep)
        for dtype in (torch.uint8, torch.float32):
            with pytest.raises(RuntimeError):
                call(keep.to(dtype))


@pytest.mark.parametrize("qualified", sorted(torch_ops.FIRST_INPUT_DTYPE_FUNCTIONS))
@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.float16])
def test_a_first_input_dtype_function_keeps_its_inputs_dtype(qualified, dtype):
    import importlib

    module, name = qualified.rsplit(".", 1)
    call = getattr(importlib.import_module(module), name)
    x = torch.ones(2, 3, dtype=dtype)
    assert call(x, (0, 1)).dtype == dtype
    assert call(x, (1, 1), value=1).dtype == dtype


@pytest.mark.parametrize("qualified", sorted(torch_ops.JOIN_FUNCTIONS))
def test_parts_of_one_dtype_join_in_it(qualified):
    """What `dtypes._joined_dtype` relies on: bool parts stay bool, mixed parts promote."""
    import importlib

    module, name = qualified.rsplit(".", 1)
    call = getattr(importlib.import_module(module), name)
    a, b = torch.ones(2, 3, dtype=torch.bool), torch.zeros(2, 3, dtype=torch.bool)
    assert call([a, b]).dtype == torch.bool
    assert call([a, b.half()]).dtype == torch.float16
