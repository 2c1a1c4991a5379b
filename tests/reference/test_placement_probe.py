"""benchmarks/placement_probe.py times the kernel with x placed at several offsets into one buffer;
on CPU (--quick, Triton's interpreter) it must still place x right and check every sum."""

import json

import pytest


def test_each_offset_places_x_at_that_many_kib_into_one_buffer(placement_probe):
    torch = pytest.importorskip("torch")
    x = torch.arange(2 * 3 * 512, dtype=torch.float16).reshape(2, 3, 512)
    views = list(placement_probe.placed_views(torch, x, [0, 1, 5]))
    base = views[0][1].data_ptr()
    assert [offset for offset, _ in views] == [0, 1, 5]
    assert [view.data_ptr() - base for _, view in views] == [0, 1024, 5 * 1024]
    assert all(view.untyped_storage().data_ptr() == views[0][1].untyped_storage().data_ptr() for _, view in views)
    # Each view holds x's values when it is used (a later copy may overlap an earlier view's bytes).
    for offset, view in placement_probe.placed_views(torch, x, [0, 1, 5]):
        assert torch.equal(view, x) and view.is_contiguous()


@pytest.mark.parametrize("mask", ["dense", "bcast_n"])
def test_quick_run_sums_right_at_every_offset_under_every_variant(placement_probe, tmp_path, mask, capsys):
    path = tmp_path / "placement.json"
    status = placement_probe.main(["--quick", "--mask", mask, "--offsets-kib", "0", "3",
                                   "--variants", "default", "row_1x2048_w8_u1", "--json", str(path)])
    result = json.loads(path.read_text())
    assert status == 0
    assert [row["offset_kib"] for row in result["rows"]] == [0, 3]
    assert all(row["ok"] == {"default": True, "row_1x2048_w8_u1": True} for row in result["rows"])
    assert result["variants"]["row_1x2048_w8_u1"] == {"ROW_TILE": 2048, "ROW_WARPS": 8, "ROW_UNROLL": 1}
    out = capsys.readouterr().out
    assert "default: " in out and "over 2 offsets" in out


def test_a_wrong_sum_fails_the_run(placement_probe, monkeypatch, tmp_path):
    import importlib

    reduce_module = importlib.import_module("stridelint.reference.reduce")
    real = reduce_module.reduce
    monkeypatch.setattr(reduce_module, "reduce", lambda *a, **k: real(*a, **k) + 1)
    assert placement_probe.main(["--quick", "--offsets-kib", "0", "--variants", "default"]) == 1


def test_bad_arguments_stop_with_a_message(placement_probe, capsys):
    with pytest.raises(SystemExit) as stopped:
        placement_probe.main(["--quick", "--shape", "4,x,64"])
    assert stopped.value.code == 2
    assert "--shape takes" in capsys.readouterr().err


def test_the_default_variants_are_sweep_variants(placement_probe):
    """argparse checks choices only where a user names them: the defaults must be real too."""
    args = placement_probe.parse_args([])
    assert args.variants[0] == "default" and len(args.variants) == 5
    assert set(args.variants) <= set(placement_probe.ALL_VARIANTS)
    assert (args.shape, args.offsets_kib) == ((8192, 4, 8192), placement_probe.DEFAULT_OFFSETS_KIB)
