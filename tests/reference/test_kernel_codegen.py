"""The reduce kernel as compiled for a Hopper GPU, checked on the CPU (benchmarks/kernel_ptx_probe.py):
on every benchmark row x is read in vectors as wide as its tile allows (16 bytes today), a mask
that varies along x's contiguous dim in vectors too, and nothing spills. A change that breaks
these slows the kernel on the GPU without failing any test that runs it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

triton = pytest.importorskip("triton")

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "benchmarks" / "kernel_ptx_probe.py"
if not (Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas").exists():
    pytest.skip("this Triton wheel bundles no ptxas", allow_module_level=True)


def run_probe(*args, interpret=False):
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), TRITON_DEFAULT_FP_FUSION="1")
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    return subprocess.run([sys.executable, str(PROBE), *args], check=False, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def compiled_rows(tmp_path_factory):
    """Every benchmark row (3 shapes x 3 dims x 4 masks x fp16 and bf16), compiled for sm_90."""
    path = tmp_path_factory.mktemp("probe") / "rows.json"
    result = run_probe("--dtypes", "fp16", "bf16", "--json", str(path))
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(path.read_text())["rows"]


def test_every_benchmark_row_is_compiled(compiled_rows):
    assert len(compiled_rows) == 72
    assert {(row["dim"], row["mask"], row["dtype"]) for row in compiled_rows} == {
        (dim, mask, dtype) for dim in range(3) for mask in ("none", "dense", "bcast_n", "bcast_m")
        for dtype in ("float16", "bfloat16")}


def test_x_is_read_in_vectors_as_wide_as_its_tile_allows(compiled_rows):
    """A thread's share of a tile lies along x's contiguous dim, so x (fp16 or bf16, the only 2-byte
    operand) comes in loads of that share's bytes, up to 16: never element by element (today's
    tiles: 16 bytes on every row)."""
    narrow = []
    for row in compiled_rows:
        block_i, block_k = row["tile"]
        share = min(16, block_i * block_k // (32 * row["num_warps"]) * 2)
        widths = [int(width) for width in row["load_widths"]]
        if 2 in widths or max(widths) < share:
            narrow.append((row["shape"], row["dim"], row["mask"], row["plan"], row["load_widths"]))
    assert not narrow


def test_a_mask_that_varies_along_xs_contiguous_dim_is_read_in_vectors(compiled_rows):
    """Dense masks and masks over M vary along N, x's contiguous dim: their bytes never come one
    at a time (8 or 16 today). A mask over N is one byte per row of x, loaded as one."""
    bytewise = [(row["shape"], row["dim"], row["mask"]) for row in compiled_rows
                if row["mask"] in ("dense", "bcast_m") and "1" in row["load_widths"]]
    assert not bytewise


def test_no_row_spills_registers(compiled_rows):
    assert [row["stack"] for row in compiled_rows] == [0] * len(compiled_rows)
    assert all(0 < row["reg"] <= 255 for row in compiled_rows)


def test_a_setting_changes_the_compiled_launch(tmp_path):
    """--set reaches the plan the probe compiles (as tile_sweep's variants would run it)."""
    path = tmp_path / "wide.json"
    result = run_probe("--shapes", "8192,4,8192", "--dims", "2", "--masks", "none", "--set", "ROW_TILE=2048",
                       "--set", "ROW_WARPS=8", "--json", str(path))
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(path.read_text())
    assert report["settings"] == {"ROW_TILE": 2048, "ROW_WARPS": 8}
    assert [(row["plan"].split()[:2], row["num_warps"]) for row in report["rows"]] == [(["1x2048", "w8"], 8)]


def test_the_probe_refuses_the_interpreter_and_bad_shapes_with_a_message():
    interpreted = run_probe("--shapes", "8,4,8", interpret=True)
    assert interpreted.returncode == 2 and "TRITON_INTERPRET" in interpreted.stderr
    bad = run_probe("--shapes", "8,4")
    assert bad.returncode == 2 and "B,M,N" in bad.stderr and "Traceback" not in bad.stderr


def test_a_sweep_compiles_each_case_under_each_variant_and_restores_the_settings(tmp_path):
    """--sweep: tile_sweep.py's cases x variants, each variant's settings applied to its own
    compile only (after a wider tile, the next variant's plan is the default's again)."""
    path = tmp_path / "sweep.json"
    result = run_probe("--sweep", "s14rows", "--json", str(path))
    assert result.returncode == 0, result.stderr[-2000:]
    rows = json.loads(path.read_text())["rows"]
    plans = {(row["dtype"], row["variant"]): row["plan"].split()[0] for row in rows}
    assert len(rows) == 10
    for dtype in ("float16", "bfloat16"):
        assert (plans[dtype, "default"], plans[dtype, "1x2048_w4_u2"], plans[dtype, "1x512_w2_u8"],
                plans[dtype, "narrow_index"]) == ("1x1024", "1x2048", "1x512", "1x1024")
    assert "1x512_w2_u8: 2 rows, 0 spill, 0 read x element by element; registers" in result.stdout


def test_variants_of_a_set_run_on_the_rows_asked_for(tmp_path):
    """--variants-of: the rows --shapes/--dims/--masks name, under each variant (what a full
    benchmark run with --set S would compile), with a summary line a variant."""
    path = tmp_path / "variants.json"
    result = run_probe("--shapes", "4,8192,8192", "--dims", "2", "--masks", "dense", "--variants-of", "s14rows",
                       "--json", str(path))
    assert result.returncode == 0, result.stderr[-2000:]
    rows = json.loads(path.read_text())["rows"]
    assert [(row["shape"], row["variant"]) for row in rows] == [
        ([4, 8192, 8192], name) for name in ("default", "u2", "1x2048_w4_u2", "1x512_w2_u8", "narrow_index")]
    assert [row["plan"].split()[2] for row in rows] == ["u4", "u2", "u2", "u8", "u4"]
    assert sum(line.endswith(tuple("0123456789")) and " 1 rows, " in line for line in result.stdout.splitlines()) == 5
