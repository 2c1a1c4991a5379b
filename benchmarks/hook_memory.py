"""Peak memory and time of the reduce kernel's launch-metadata hook on a broadcast mask.

On a (B, 4, 8192) mask broadcast over its last dim (B = 65536: the reduce benchmark's hook
shape), each figure is the most bytes held beyond what was live before the call
(`torch.cuda.max_memory_allocated`; on CPU the profiler's allocator events), also as a multiple
of the mask's physical storage:

* forms: ways to count the narrowed bool mask `kept = mask_small != 0` (made beforehand, so not
  counted), over all dims and over each dim: `sum`, `count_nonzero`, `sum(dtype=int32)`, and
  any count helper named with --count-helper (such as the one the narrow-and-rescale fix pastes);
* hooks: the naive hook (stridelint/reference/naive_metadata.py.txt), each hook file named with
  --hook (such as `stridelint fix`'s output for the naive hook) and the shipped hook
  (stridelint/reference/metadata.py), over each dim, for a bool and an int32 mask; each hook's
  values, dtypes and shapes are checked against the naive hook's.

    python benchmarks/hook_memory.py --hook autofix=fixes/SL101/reference_hook.after.py \\
        --count-helper fixes/SL101/reference_hook.after.py:_repeated_count --json out.json
    python benchmarks/hook_memory.py --quick   # a small mask, on CPU
"""

from __future__ import annotations

import argparse
import json
import platform
import runpy
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing the package

import torch

from stridelint.reference.measure import broadcast_mask, median_seconds, peak_memory

HOOK_ELEMENTS = 65536 * 4 * 8192
QUICK_ELEMENTS = 64 * 4 * 8192
NAIVE_HOOK = ROOT / "stridelint" / "reference" / "naive_metadata.py.txt"
SHIPPED_HOOK = ROOT / "stridelint" / "reference" / "metadata.py"
BOUND = 1.5  # issue 20: extra memory at most 1.5x the mask's storage


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_ELEMENTS} logical elements, 1 repeat"
    )
    parser.add_argument(
        "--hook", action="append", default=[], metavar="NAME=PATH",
        help="a file defining reduce_launch_metadata, measured beside the naive and shipped hooks",
    )
    parser.add_argument(
        "--count-helper", action="append", default=[], metavar="PATH:FUNCTION",
        help="a function(t, repeats, dim=None, keepdim=False) measured among the forms",
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the results here")
    return parser.parse_args(argv)


def load(path: Path, name: str):
    return runpy.run_path(str(path))[name]


def count_forms(helpers: dict) -> dict:
    """Name -> function(kept, mask_small, dim) of each way to count the narrowed mask."""
    forms = {
        "kept.sum(dim)": lambda kept, small, dim: kept.sum() if dim is None else kept.sum(dim),
        "torch.count_nonzero(kept, dim)": lambda kept, small, dim: torch.count_nonzero(kept, dim),
        "torch.count_nonzero(mask_small, dim)":
            lambda kept, small, dim: torch.count_nonzero(small, dim),
        "kept.sum(dim, dtype=torch.int32)":
            lambda kept, small, dim: kept.sum(dim, dtype=torch.int32),
    }
    for name, helper in helpers.items():
        forms[f"{name}(kept, 1, dim)"] = (
            lambda kept, small, dim, helper=helper: helper(kept, 1, dim)
        )
    return forms


def measure_forms(logical: int, device: str, helpers: dict, repeats: int) -> list[dict]:
    rows = []
    for mask_dtype in (torch.bool, torch.int32):
        mask = broadcast_mask(logical, device, mask_dtype)
        small = mask.narrow(2, 0, 1)
        kept = small != 0
        storage = mask.untyped_storage().nbytes()
        for form, fn in count_forms(helpers).items():
            for dim in (None, 0, 1, 2):
                expected = kept.sum() if dim is None else kept.sum(dim)

                def call(fn=fn, kept=kept, small=small, dim=dim):
                    return fn(kept, small, dim)

                value, peak = peak_memory(call, device)
                same = value.shape == expected.shape and torch.equal(value.long(), expected)
                rows.append({
                    "mask_dtype": str(mask_dtype).removeprefix("torch."), "form": form,
                    "dim": dim, "peak_bytes": peak, "of_mask_storage": peak / storage,
                    "seconds": median_seconds(call, device, repeats),
                    "dtype": str(value.dtype).removeprefix("torch."), "exact": bool(same),
                })
    return rows


def hook_args(mask, dim):
    """The kernel arguments the hook reads: X and Y only for their shapes (zero-copy views)."""
    out_shape = [size for d, size in enumerate(mask.shape) if d != dim]
    x = torch.empty((), dtype=torch.float16, device=mask.device).expand(mask.shape)
    y = torch.empty((), dtype=torch.float16, device=mask.device).expand(out_shape)
    return {
        "X": x, "Y": y, "Mask": mask, "Scale": x, "DIM": dim, "HAS_MASK": True, "HAS_SCALE": False
    }


def same_metadata(a: dict, b: dict) -> bool:
    return a["name"] == b["name"] and all(
        a[key].dtype == b[key].dtype
        and a[key].shape == b[key].shape
        and torch.equal(a[key], b[key])
        for key in ("flops32", "bytes")
    )


def measure_hooks(logical: int, device: str, hooks: dict, repeats: int) -> list[dict]:
    rows = []
    kernel = SimpleNamespace(name="_reduce_kernel")
    for mask_dtype in (torch.bool, torch.int32):
        mask = broadcast_mask(logical, device, mask_dtype)
        storage = mask.untyped_storage().nbytes()
        for dim in (0, 1, 2):
            args = hook_args(mask, dim)
            results = {}
            for name, hook in hooks.items():

                def call(hook=hook, args=args):
                    return hook((1,), kernel, args)

                results[name], peak = peak_memory(call, device)
                rows.append({
                    "mask_dtype": str(mask_dtype).removeprefix("torch."),
                    "shape": list(mask.shape), "dim": dim, "hook": name,
                    "mask_storage_bytes": storage, "peak_bytes": peak,
                    "of_mask_storage": peak / storage, "within_bound": peak <= BOUND * storage,
                    "seconds": median_seconds(call, device, repeats),
                    "same_as_naive": same_metadata(results[name], results["naive"]),
                })
    return rows


def main(argv=None) -> int:
    args = parse_args(argv)
    logical = QUICK_ELEMENTS if args.quick else HOOK_ELEMENTS
    repeats = 1 if args.quick else args.repeats
    hooks = {"naive": load(NAIVE_HOOK, "reduce_launch_metadata")}
    for spec in args.hook:
        name, _, path = spec.partition("=")
        hooks[name] = load(ROOT / path, "reduce_launch_metadata")
    hooks["shipped"] = load(SHIPPED_HOOK, "reduce_launch_metadata")
    helpers = {}
    for spec in args.count_helper:
        path, _, function = spec.rpartition(":")
        helpers[function] = load(ROOT / path, function)
    on_gpu = args.device.startswith("cuda")
    device_name = torch.cuda.get_device_name() if on_gpu else platform.processor()
    report = {
        "device": device_name, "torch": torch.__version__, "logical_elements": logical,
        "command": " ".join(["python", "benchmarks/hook_memory.py", *(argv or sys.argv[1:])]),
        "forms": measure_forms(logical, args.device, helpers, repeats),
        "hooks": measure_hooks(logical, args.device, hooks, repeats),
    }
    print(f"{report['device']}, torch {report['torch']}, mask {logical} logical elements")
    print("\n| mask | form | dim | peak KiB | x mask storage | ms | result dtype | exact |")
    print("|---|---|---|---|---|---|---|---|")
    for row in report["forms"]:
        print(
            f"| {row['mask_dtype']} | `{row['form']}` | {row['dim']} "
            f"| {row['peak_bytes'] / 1024:.0f} | {row['of_mask_storage']:.2f} "
            f"| {row['seconds'] * 1e3:.3f} | {row['dtype']} | {row['exact']} |"
        )
    print("\n| mask | dim | hook | peak KiB | x mask storage | <= 1.5x | ms | same as naive |")
    print("|---|---|---|---|---|---|---|---|")
    for row in report["hooks"]:
        print(
            f"| {row['mask_dtype']} | {row['dim']} | {row['hook']} "
            f"| {row['peak_bytes'] / 1024:.0f} | {row['of_mask_storage']:.2f} "
            f"| {row['within_bound']} | {row['seconds'] * 1e3:.3f} | {row['same_as_naive']} |"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0 if all(row["same_as_naive"] for row in report["hooks"]) else 1


if __name__ == "__main__":
    sys.exit(main())
