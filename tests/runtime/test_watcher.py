"""`stridelint.runtime.watch()`: which ops it records, where it says they ran, and what it skips."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest
import torch

from stridelint.runtime import Event, watch
from stridelint.runtime.report import format_table, read_json, write_json

B, H, S = 64, 32, 2048  # the launch-metadata mask: (B, 1, 1) broadcast to (B, H, S)


def lineno_of(marker: str) -> int:
    """The line of this file that ends with `# <marker>`."""
    lines = Path(__file__).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.endswith(f"# {marker}"))


@pytest.fixture
def mask() -> torch.Tensor:
    return torch.randint(0, 3, (B, 1, 1)).expand(B, H, S)


def naive_launch_metadata(mask: torch.Tensor) -> tuple[int, int]:
    m = mask != 0  # naive-ne
    total_loads = m.sum()
    total_adds = (m.sum(dim=1) - 1).clamp(min=0).sum()
    return int(total_loads), int(total_adds)


def narrowed_launch_metadata(mask: torch.Tensor) -> tuple[int, int]:
    """The fix of PR #10776: narrow the stride-0 dims to size 1, count, multiply by repeats."""
    repeats = [1] * mask.dim()
    for d in range(mask.dim()):
        if mask.stride(d) == 0 and mask.size(d) > 1:
            repeats[d] = mask.size(d)
            mask = mask.narrow(d, 0, 1)
    m = mask != 0
    total_loads = m.sum() * repeats[1] * repeats[2]
    total_adds = ((m.sum(dim=1) * repeats[1] - 1).clamp(min=0) * repeats[2]).sum()
    return int(total_loads), int(total_adds)


def test_catches_the_naive_launch_metadata_count(mask: torch.Tensor) -> None:
    with watch() as w:
        naive_launch_metadata(mask)
    [event] = w.events
    assert (event.op, event.kind, event.family) == ("torch.Tensor.ne", "elementwise", "SL2xx")
    assert event.shape == (B, H, S) and event.stride == (1, 0, 0) and event.dtype == "int64"
    assert event.output_bytes == B * H * S  # one bool per logical element
    assert event.storage_bytes == B * 8
    assert event.blowup == H * S / 8


def test_narrow_and_rescale_is_clean_and_counts_the_same(mask: torch.Tensor) -> None:
    with watch() as w:
        counts = narrowed_launch_metadata(mask)
    assert w.events == []
    assert counts == naive_launch_metadata(mask)


def test_reduction_directly_on_the_broadcast_tensor(mask: torch.Tensor) -> None:
    with watch() as w:
        mask.count_nonzero(dim=1)
    [event] = w.events
    assert (event.op, event.kind, event.family) == (
        "torch.Tensor.count_nonzero",
        "reduction",
        "SL1xx",
    )
    assert event.output_bytes == B * H * S * 8  # the input's logical bytes


def test_cast_of_an_expanded_tensor(mask: torch.Tensor) -> None:
    with watch() as w:
        mask.float()
    [event] = w.events
    assert (event.op, event.kind, event.family) == ("torch.Tensor.float", "cast", "SL2xx")
    assert event.output_bytes == B * H * S * 4


def test_contiguous_of_an_expanded_tensor(mask: torch.Tensor) -> None:
    with watch() as w:
        mask.contiguous()
    [event] = w.events
    assert (event.op, event.kind, event.family) == ("torch.Tensor.contiguous", "copy", "SL3xx")


def test_gqa_reshape_merging_a_broadcast_dim() -> None:
    b, h, g, s, d = 2, 4, 4, 256, 64  # the copy is g times the storage: lower the threshold
    k = torch.randn(b, h, s, d)
    with watch(threshold=2.0) as w:
        k[:, :, None].expand(b, h, g, s, d).reshape(b, h * g, s, d)
    [event] = w.events
    assert (event.op, event.kind, event.family) == ("torch.Tensor.reshape", "copy", "SL3xx")
    assert event.shape == (b, h, g, s, d) and event.stride[2] == 0
    assert event.blowup == g


def test_fill_into_an_expanded_tensor_is_a_write() -> None:
    e = torch.zeros(4, 1).expand(4, 8)
    with watch() as w:
        e.fill_(1.0)  # small, but writes are recorded whatever their size
    [event] = w.events
    assert (event.op, event.kind, event.family) == ("torch.Tensor.fill_", "write", "SL4xx")
    assert (event.output_bytes, event.storage_bytes) == (4 * 8 * 4, 4 * 4)


def test_out_argument_that_is_broadcast_is_recorded_before_torch_rejects_it() -> None:
    a, b = torch.ones(4, 8), torch.ones(4, 8)
    expanded = torch.zeros(4, 1).expand(4, 8)
    with watch() as w:
        with pytest.raises(RuntimeError, match="more than one element"):
            torch.add(a, b, out=expanded)
    assert [(e.op, e.kind) for e in w.events] == [("torch.add", "write")]


def test_ops_on_dense_tensors_are_ignored() -> None:
    dense = torch.randint(0, 3, (B, H, S))
    with watch() as w:
        (dense != 0).sum()
        dense.float().contiguous()
        dense.clone()
    assert w.events == []


def test_same_dtype_cast_returns_self_and_is_ignored() -> None:
    f = torch.randn(B, 1, 1).expand(B, H, S)
    with watch() as w:
        assert f.float() is f
        assert f.to(torch.float32) is f
    assert w.events == []


def test_broadcasting_against_a_dense_operand_is_ignored() -> None:
    x = torch.randn(B, H, S)
    with watch() as w:
        x * torch.randn(B, 1, 1).expand_as(x)  # as large as `x`: ordinary broadcasting
    assert w.events == []


def test_location_is_the_callers_line(mask: torch.Tensor) -> None:
    with watch() as w:
        mask.float()  # location-line
        naive_launch_metadata(mask)
    cast, ne = w.events
    assert (cast.filename, cast.lineno) == (__file__, lineno_of("location-line"))
    assert cast.function == "test_location_is_the_callers_line"
    assert (ne.lineno, ne.function) == (lineno_of("naive-ne"), "naive_launch_metadata")


def test_suppression_comments_of_the_same_family(tmp_path: Path, mask: torch.Tensor) -> None:
    source = tmp_path / "noqa_example.py"
    source.write_text(
        textwrap.dedent(
            """\
            def run(e):
                e.float()  # noqa: SL2
                e.float()  # noqa: SL201, E501
                1.0 - e  # noqa
                e.contiguous()  # stridelint: ignore[SL3]
                e.contiguous()  # noqa: SL2xx
                e.float()  # noqa: SL3
                e.float()
            """
        )
    )
    spec = importlib.util.spec_from_file_location("noqa_example", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with watch() as w:
        module.run(mask)
    assert [(e.lineno, e.op) for e in w.events] == [
        (6, "torch.Tensor.contiguous"),  # SL3xx: an SL2 code does not cover it
        (7, "torch.Tensor.float"),
        (8, "torch.Tensor.float"),
    ]
    assert all(e.filename == str(source) for e in w.events)


def test_summary_groups_by_location_and_op(mask: torch.Tensor) -> None:
    with watch() as w:
        for _ in range(3):
            mask.float()
        mask.narrow(2, 0, 256).float()
    rows = w.summary()
    assert [(r.op, r.count) for r in rows] == [("torch.Tensor.float", 3), ("torch.Tensor.float", 1)]
    assert rows[0].worst_blowup == B * H * S * 4 / (B * 8)
    table = format_table(rows)
    assert "torch.Tensor.float" in table and "SL2xx cast" in table and "test_watcher.py" in table


def test_nested_watchers_both_record(mask: torch.Tensor) -> None:
    with watch() as outer:
        mask.float()
        with watch() as inner:
            mask.contiguous()
    assert [e.op for e in inner.events] == ["torch.Tensor.contiguous"]
    assert [e.op for e in outer.events] == ["torch.Tensor.float", "torch.Tensor.contiguous"]


def test_an_exception_leaves_the_watcher_and_stops_recording(mask: torch.Tensor) -> None:
    with pytest.raises(ValueError, match="boom"):
        with watch() as w:
            mask.float()
            raise ValueError("boom")
    mask.float()
    assert len(w.events) == 1


def test_an_unentered_watcher_installs_nothing() -> None:
    watch()
    assert torch._C._len_torch_function_stack() == 0


def test_json_round_trip(tmp_path: Path, mask: torch.Tensor) -> None:
    with watch() as w:
        mask.float()
    path = tmp_path / "events.json"
    write_json(path, [("tests/x.py::test", w.events[0])])
    assert read_json(path) == [("tests/x.py::test", w.events[0])]
    assert isinstance(read_json(path)[0][1], Event)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_tensors() -> None:
    mask = torch.randint(0, 3, (B, 1, 1), device="cuda").expand(B, H, S)
    with watch() as w:
        naive_launch_metadata(mask)
        narrowed_launch_metadata(mask)
    [event] = w.events
    assert (event.op, event.device) == ("torch.Tensor.ne", "cuda:0")
